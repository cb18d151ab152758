class A:
    def f(x):
        if x:
            print(x)
            return 1
        return 2
