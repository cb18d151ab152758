import os

X = 2
