a
b
c
