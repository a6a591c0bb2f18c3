# The compiled half of every public elementwise function (fibnim._ufunc):
# the calls a game loop, a search or a block loop makes millions of times,
# answered here without a Python frame. Python ints go to the compiled kernel
# (to the exact function past its bounds); integer arrays (and Python ints
# among them), with out=, where= and misere= at most, go to the function's
# numpy ufunc. Everything else, and every call while the
# pure twin is in use, goes to the Python half's `general` method, which also
# names the index of a value the ufunc refused.

from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.ref cimport PyObject

cdef extern from "Python.h":
    object PyObject_Vectorcall(object callable, PyObject** args, size_t nargsf, PyObject* kwnames)
    Py_ssize_t PY_SSIZE_T_MAX

cdef tuple WHERE = ("where",)  # the keyword names of a call with where=

cdef uint64_t PILE_LIMIT = 0x7FFFFFFFFFFFFFFF  # 2**63 - 1: the pile bound of every game

# whether the compiled backend is the one in use (fibnim._backend.use sets it)
cdef bint compiled_active = True

# fibnim._threads.ufunc_call, which splits an array call over threads, and the
# fewest values a call needs to be handed to it: a smaller call never leaves C
cdef object split_call = None
cdef Py_ssize_t split_from = PY_SSIZE_T_MAX


def set_split_call(function, Py_ssize_t values):
    """Hand array calls of `values` values or more to function(ufunc, inputs, outs, where)."""
    global split_call, split_from
    split_call, split_from = function, values


def set_compiled_active(bint active):
    """Tell the fronts whether the compiled backend is in use (fibnim._backend)."""
    global compiled_active
    compiled_active = active


cdef inline bint small_int(object v, long long high) except -1:
    """Whether v is a Python int from 0 to high (<= 2**63 - 1)."""
    cdef int overflow = 0
    cdef long long value
    if type(v) is not int:
        return False
    value = PyLong_AsLongLongAndOverflow(v, &overflow)
    return overflow == 0 and 0 <= value <= high


cdef inline bint integer_array(object a) noexcept:
    """Whether a is an ndarray of a fixed-width integer dtype (bool is not)."""
    cdef int kind
    if not cnp.PyArray_CheckExact(a):
        return False
    kind = cnp.PyArray_TYPE(<cnp.ndarray>a)
    return cnp.NPY_BYTE <= kind <= cnp.NPY_ULONGLONG


cdef inline void extent(cnp.ndarray a, char** low, char** high) noexcept:
    # the bytes an array's elements span
    cdef int i
    cdef Py_ssize_t step
    low[0] = high[0] = <char*>cnp.PyArray_DATA(a)
    for i in range(cnp.PyArray_NDIM(a)):
        if cnp.PyArray_DIM(a, i) == 0:
            high[0] = low[0]
            return
        step = cnp.PyArray_STRIDE(a, i) * (cnp.PyArray_DIM(a, i) - 1)
        if step < 0:
            low[0] += step
        else:
            high[0] += step
    high[0] += cnp.PyArray_ITEMSIZE(a)


cdef bint plain_outs(object out) except -1:
    """Whether out= is an ndarray, or a tuple of ndarrays no two of which share
    memory (numpy would write both answers over each other there)."""
    cdef char *low0
    cdef char *high0
    cdef char *low1
    cdef char *high1
    if cnp.PyArray_CheckExact(out):
        return True
    if type(out) is not tuple:
        return False
    if len(out) == 1:
        return cnp.PyArray_CheckExact((<tuple>out)[0])
    if len(out) != 2:
        return False
    first, second = out
    if not (cnp.PyArray_CheckExact(first) and cnp.PyArray_CheckExact(second)):
        return False
    extent(<cnp.ndarray>first, &low0, &high0)
    extent(<cnp.ndarray>second, &low1, &high1)
    return not (low0 < high1 and low1 < high0)


cdef object as_python(uint64_t answer, int kind):
    # the bytes a loop wrote, as the Python object of that numpy type
    if kind == cnp.NPY_BOOL:
        return (answer & 0xFF) != 0
    if kind == cnp.NPY_UINT8:
        return <int>(answer & 0xFF)
    if kind == cnp.NPY_INT64:
        return <int64_t>answer
    return answer


cdef class Front:
    """The part of a public elementwise function that the compiled core answers.

    `ufunc` and `exact` answer calls of all the inputs; `short_ufunc` and
    `short_exact` calls that leave the last input to its default (None where
    there is no such default). `scalar_high` bounds the Python ints that go to
    the exact function here (-1: none do). This half answers only while the
    compiled backend is in use.
    """

    cdef public object ufunc, exact, short_ufunc, short_exact
    cdef public object option, option_ufunc  # misere=True's ufunc (None: no option)
    cdef public Py_ssize_t inputs
    cdef public long long scalar_high
    cdef Rows rows, short_rows
    cdef uint64_t limit
    cdef int outputs
    cdef int output_types[2]

    def use_kernel(self, str kernel, str short_kernel, uint64_t limit, tuple output_types):
        """Answer Python ints up to `limit` (and 2**63 - 1) with the compiled
        kernels of these names (fibnim_c/ufuncs.pxi), as the ufunc's loop does;
        short_kernel "" where there is none."""
        self.rows = rows_named(kernel)
        self.short_rows = rows_named(short_kernel) if short_kernel else NULL
        self.limit = min(limit, PILE_LIMIT)
        self.outputs = len(output_types)
        for j in range(self.outputs):
            self.output_types[j] = output_types[j]

    cdef object kernel_answer(self, tuple args, bint whole):
        """The kernel's answer for Python ints 0 .. 2**63 - 1, as Python objects
        (None for a function of two outputs where both are -1: no move); None
        where the kernel refuses a value, too: the caller answers then."""
        cdef uint64_t values[2]
        cdef uint64_t answers[2]
        cdef const uint64_t* ins[2]
        cdef char* outs[2]
        cdef Rows rows = self.rows if whole else self.short_rows
        cdef int j
        for j in range(len(args)):
            values[j] = <uint64_t>(<long long>args[j])
            if values[j] > self.limit:
                return NotImplemented
            ins[j] = &values[j]
        for j in range(self.outputs):
            answers[j] = 0
            outs[j] = <char*>&answers[j]
        if rows(ins, outs, 1, self.limit) >= 0:
            return NotImplemented
        found = [as_python(answers[j], self.output_types[j]) for j in range(self.outputs)]
        if self.outputs == 1:
            return found[0]
        return None if found[0] == -1 and found[1] == -1 else tuple(found)

    def __call__(self, *args, **kwargs):
        cdef Py_ssize_t count = len(args)
        cdef bint whole = count == self.inputs
        if not compiled_active or not (whole or (count == self.inputs - 1
                                                 and self.short_ufunc is not None)):
            return self.general(*args, **kwargs)
        if not kwargs and self.scalar_high >= 0:
            for a in args:
                if not small_int(a, self.scalar_high):
                    break
            else:
                answer = self.kernel_answer(args, whole)
                if answer is not NotImplemented:
                    return answer
                return (self.exact if whole else self.short_exact)(*args)
        cdef int arrays = 0, n = 0, j
        cdef Py_ssize_t largest = 0
        cdef PyObject* stack[6]  # the inputs, the outs, where: a vectorcall's arguments
        for a in args:
            if integer_array(a):
                arrays += 1
                largest = max(largest, cnp.PyArray_SIZE(<cnp.ndarray>a))
            elif not small_int(a, PILE_LIMIT):
                return self.general(*args, **kwargs)
            stack[n] = <PyObject*>a
            n += 1
        if not arrays:
            return self.general(*args, **kwargs)  # Python ints with out= or where=
        ufunc = self.ufunc if whole else self.short_ufunc
        settings = ()
        for key in kwargs:
            if key == self.option and whole:
                value = kwargs[key]
                if value is True:
                    ufunc, settings = self.option_ufunc, (True,)
                elif value is not False:
                    return self.general(*args, **kwargs)  # a flag() that refuses it
            elif key != "out" and key != "where":
                return self.general(*args, **kwargs)
        out = kwargs.get("out")
        where = kwargs.get("where", True)
        if where is not True and out is None:
            return self.general(*args, **kwargs)  # it fills what where= leaves out
        if out is not None:
            # outs of the answers' own dtypes that share no memory, passed as
            # numpy's positional outs; the rest (another dtype: numpy's cast
            # rule decides there) goes to general
            outs = (out,) if cnp.PyArray_CheckExact(out) else out
            if not plain_outs(out) or len(outs) != self.outputs:
                return self.general(*args, **kwargs)
            for j in range(self.outputs):
                if cnp.PyArray_TYPE(<cnp.ndarray>outs[j]) != self.output_types[j]:
                    return self.general(*args, **kwargs)
                stack[n] = <PyObject*>outs[j]
                largest = max(largest, cnp.PyArray_SIZE(<cnp.ndarray>outs[j]))
                n += 1
        try:
            if largest >= split_from and split_call is not None:
                return split_call(ufunc, tuple(args), None if out is None else tuple(outs), where)
            if where is True:
                return PyObject_Vectorcall(ufunc, stack, n, NULL)
            stack[n] = <PyObject*>where
            return PyObject_Vectorcall(ufunc, stack, n, <PyObject*>WHERE)
        except (OverflowError, ValueError, RuntimeError) as error:
            if getattr(error, "fibnim_unlocated", False):
                self.locate(error, "__call__", args, kwargs, settings)
            raise
