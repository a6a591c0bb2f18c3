"""The pure-Python twin of every compiled kernel (fibnim_c/*.pyx).

Each module here has the same kernel names and signatures as its compiled
twin: checked uint64 arrays in, results written into `out`. The arithmetic is
done on Python ints by fibnim._exact; numpy only carries the data.

The public elementwise functions have no ufuncs here: fibnim._ufunc answers
them through fibnim._apply with these kernels.
"""
