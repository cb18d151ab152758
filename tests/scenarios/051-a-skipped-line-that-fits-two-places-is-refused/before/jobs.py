def f1():
    start()
    middle1()
    work()
    finish()


def f2():
    start()
    middle2()
    work()
    finish()


