a
B
c
