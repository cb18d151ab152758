a
old
z
