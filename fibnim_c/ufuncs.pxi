# numpy ufuncs over the elementwise kernels: the inner loops numpy calls with
# strided pointers, and the function that makes a ufunc of a kernel.
#
# Each ufunc has loops for int64 and uint64 inputs (and, with two inputs, the
# mixed pairs); numpy casts other integer types safely into them. A loop hands
# contiguous runs to the kernel as they are, and gathers strided ones (or ones
# that an output overlaps) into private blocks first. The kernel checks each
# value as it reads it; at the first bad one the loop sets the error that the
# ufunc's refusal handler makes (it names the value, not its index: the
# loop sees a buffer, not the caller's array) and blanks the outputs from
# there on. fibnim._ufunc then finds the index in the caller's array.

cimport numpy as cnp
from libc.string cimport memcpy, memset

cnp.import_array()
cnp.import_umath()

cdef extern from "ufunc_state.h":
    int loop_failed "fibnim_loop_failed"

cdef extern from "Python.h":
    void PyErr_SetObject(object, object)
    void* PyErr_Occurred() noexcept nogil

ctypedef Py_ssize_t (*Rows)(const uint64_t** ins, char** outs, Py_ssize_t size,
                            uint64_t limit) noexcept nogil

cdef struct Loop:
    Rows rows
    int inputs
    int outputs
    int out_size[2]
    int signed_inputs  # bit i set: input i is int64
    uint64_t limit
    Py_ssize_t handler  # its index in REFUSALS

cdef enum:
    BLOCK = 512  # elements gathered at a time from strided inputs

# handler(argument, value) -> the exception for a refused value, per ufunc
cdef list REFUSALS = []


cdef Py_ssize_t fib_loop(const uint64_t** i, char** o, Py_ssize_t n, uint64_t limit) noexcept nogil:
    return fib_rows(i[0], <uint64_t*>o[0], n, limit)

cdef Py_ssize_t encode_loop(const uint64_t** i, char** o, Py_ssize_t n, uint64_t limit) noexcept nogil:
    return encode_rows(i[0], <uint64_t*>o[0], n, limit)

cdef Py_ssize_t decode_loop(const uint64_t** i, char** o, Py_ssize_t n, uint64_t limit) noexcept nogil:
    return decode_rows(i[0], <int64_t*>o[0], n, limit)

cdef Py_ssize_t lowest_term_loop(const uint64_t** i, char** o, Py_ssize_t n, uint64_t limit) noexcept nogil:
    return lowest_term_rows(i[0], <uint64_t*>o[0], n, limit)

cdef Py_ssize_t is_fibonacci_loop(const uint64_t** i, char** o, Py_ssize_t n, uint64_t limit) noexcept nogil:
    return is_fibonacci_rows(i[0], <uint8_t*>o[0], n, limit)

cdef Py_ssize_t term_count_loop(const uint64_t** i, char** o, Py_ssize_t n, uint64_t limit) noexcept nogil:
    return term_count_rows(i[0], <uint8_t*>o[0], n, limit)

cdef Py_ssize_t pair_loop(const uint64_t** i, char** o, Py_ssize_t n, uint64_t limit) noexcept nogil:
    return pair_rows(i[0], <int64_t*>o[0], <int64_t*>o[1], n, limit)

cdef Py_ssize_t is_safe_loop(const uint64_t** i, char** o, Py_ssize_t n, uint64_t limit) noexcept nogil:
    return is_safe_rows(i[0], i[1], <uint8_t*>o[0], n, False, limit)

cdef Py_ssize_t is_safe_misere_loop(const uint64_t** i, char** o, Py_ssize_t n, uint64_t limit) noexcept nogil:
    return is_safe_rows(i[0], i[1], <uint8_t*>o[0], n, True, limit)

cdef Py_ssize_t is_lower_loop(const uint64_t** i, char** o, Py_ssize_t n, uint64_t limit) noexcept nogil:
    return lower_or_upper(i[0], <uint8_t*>o[0], n, limit, False)

cdef Py_ssize_t is_upper_loop(const uint64_t** i, char** o, Py_ssize_t n, uint64_t limit) noexcept nogil:
    return lower_or_upper(i[0], <uint8_t*>o[0], n, limit, True)

cdef Py_ssize_t index_loop(const uint64_t** i, char** o, Py_ssize_t n, uint64_t limit) noexcept nogil:
    return index_rows(i[0], <int64_t*>o[0], n, limit)

cdef Py_ssize_t partner_loop(const uint64_t** i, char** o, Py_ssize_t n, uint64_t limit) noexcept nogil:
    return partner_rows(i[0], <int64_t*>o[0], n, limit)

cdef Py_ssize_t winning_move_loop(const uint64_t** i, char** o, Py_ssize_t n, uint64_t limit) noexcept nogil:
    return moves(i[0], i[1], 1, <int64_t*>o[0], <int64_t*>o[1], NULL, 1, n, False, limit)

cdef Py_ssize_t winning_move_misere_loop(const uint64_t** i, char** o, Py_ssize_t n,
                                         uint64_t limit) noexcept nogil:
    return moves(i[0], i[1], 1, <int64_t*>o[0], <int64_t*>o[1], NULL, 1, n, True, limit)

cdef Py_ssize_t array_position_loop(const uint64_t** i, char** o, Py_ssize_t n, uint64_t limit) noexcept nogil:
    return array_position_rows(i[0], <int64_t*>o[0], <int64_t*>o[1], n, limit)

cdef Py_ssize_t is_p_loop(const uint64_t** i, char** o, Py_ssize_t n, uint64_t limit) noexcept nogil:
    return is_p_rows(i[0], i[1], <uint8_t*>o[0], n, limit)

cdef Py_ssize_t winning_take_loop(const uint64_t** i, char** o, Py_ssize_t n, uint64_t limit) noexcept nogil:
    return winning_take_rows(i[0], i[1], <int64_t*>o[0], n, limit)

cdef Py_ssize_t with_opening_bound(Rows rows, const uint64_t* n, char** o, Py_ssize_t size,
                                   int out_size, uint64_t limit) noexcept nogil:
    # rows(n, r) with r the opening bound n - 1, from a private copy of n: the
    # bound always belongs to the pile the kernel checks
    cdef uint64_t piles[BLOCK]
    cdef uint64_t bounds[BLOCK]
    cdef const uint64_t* ins[2]
    cdef char* outs[1]
    cdef Py_ssize_t start = 0, count, k, bad
    ins[0] = piles
    ins[1] = bounds
    while start < size:
        count = size - start if size - start < BLOCK else BLOCK
        memcpy(piles, n + start, count * 8)
        for k in range(count):
            bounds[k] = piles[k] - (piles[k] > 0)
        outs[0] = o[0] + start * out_size
        bad = rows(ins, outs, count, limit)
        if bad >= 0:
            return start + bad
        start += count
    return -1

cdef Py_ssize_t opening_is_p_loop(const uint64_t** i, char** o, Py_ssize_t n, uint64_t limit) noexcept nogil:
    return with_opening_bound(is_p_loop, i[0], o, n, 1, limit)

cdef Py_ssize_t opening_winning_take_loop(const uint64_t** i, char** o, Py_ssize_t n,
                                          uint64_t limit) noexcept nogil:
    return with_opening_bound(winning_take_loop, i[0], o, n, 8, limit)


cdef Rows rows_named(str name) except NULL:
    if name == "zeckendorf.fib": return fib_loop
    if name == "zeckendorf.encode": return encode_loop
    if name == "zeckendorf.decode": return decode_loop
    if name == "zeckendorf.lowest_term": return lowest_term_loop
    if name == "zeckendorf.is_fibonacci": return is_fibonacci_loop
    if name == "zeckendorf.term_count": return term_count_loop
    if name == "wythoff.pair": return pair_loop
    if name == "wythoff.is_safe": return is_safe_loop
    if name == "wythoff.is_safe_misere": return is_safe_misere_loop
    if name == "wythoff.is_lower": return is_lower_loop
    if name == "wythoff.is_upper": return is_upper_loop
    if name == "wythoff.index": return index_loop
    if name == "wythoff.partner": return partner_loop
    if name == "wythoff.winning_move": return winning_move_loop
    if name == "wythoff.winning_move_misere": return winning_move_misere_loop
    if name == "wythoff.array_position": return array_position_loop
    if name == "fibonacci_nim.is_p": return is_p_loop
    if name == "fibonacci_nim.is_p_opening": return opening_is_p_loop
    if name == "fibonacci_nim.winning_take": return winning_take_loop
    if name == "fibonacci_nim.winning_take_opening": return opening_winning_take_loop
    raise KeyError(f"fibnim._core has no ufunc kernel {name!r}")


cdef void report(const Loop* loop, const uint64_t** ins, Py_ssize_t at) noexcept with gil:
    # the error of the value at `at`: the first input above the limit there,
    # else the first input (its own rule refused it: the handler says which)
    global loop_failed
    cdef int argument = 0, k
    cdef uint64_t value
    cdef object number
    loop_failed = 1
    if PyErr_Occurred() != NULL:  # an error of the same call, found first
        return
    for k in range(loop.inputs - 1, -1, -1):
        if ins[k][at] > loop.limit:
            argument = k
    value = ins[argument][at]
    if (loop.signed_inputs >> argument) & 1:
        number = <int64_t>value
    else:
        number = value
    try:
        error = REFUSALS[loop.handler](argument, number)
    except BaseException as raised:
        error = raised
    PyErr_SetObject(type(error), error)


cdef bint failed_before() noexcept with gil:
    # an error of this call pending (else the flag is from an earlier call)
    global loop_failed
    if PyErr_Occurred() != NULL:
        return True
    loop_failed = 0
    return False


cdef inline void blank(const Loop* loop, char** args, const cnp.npy_intp* steps,
                       Py_ssize_t start, Py_ssize_t stop) noexcept nogil:
    # no output of a failed call keeps memory that nothing wrote (a buffer)
    cdef int j
    cdef Py_ssize_t i
    for j in range(loop.outputs):
        for i in range(start, stop):
            memset(args[loop.inputs + j] + i * steps[loop.inputs + j], 0, loop.out_size[j])


cdef inline bint overlaps(const char* a, Py_ssize_t a_bytes, const char* b, Py_ssize_t b_bytes) noexcept nogil:
    return a < b + b_bytes and b < a + a_bytes


cdef void elementwise_loop(char** args, const cnp.npy_intp* dimensions, const cnp.npy_intp* steps,
                           void* data) noexcept nogil:
    cdef const Loop* loop = <const Loop*>data
    cdef Py_ssize_t size = dimensions[0], start, count, bad, i
    cdef int k, j, width
    cdef bint direct = True
    cdef const uint64_t* ins[2]
    cdef char* outs[2]
    cdef uint64_t gathered[2][BLOCK]
    cdef uint64_t answers[2][BLOCK]
    if loop_failed and failed_before():
        blank(loop, args, steps, 0, size)
        return
    for k in range(loop.inputs):
        direct &= steps[k] == 8 and (<size_t>args[k]) % 8 == 0
    for j in range(loop.outputs):
        direct &= steps[loop.inputs + j] == loop.out_size[j]
        for k in range(loop.inputs):
            # an output over an input: the kernel would read what it wrote
            # (winning_move reads its inputs twice), unless it is the same
            if args[loop.inputs + j] != args[k]:
                direct &= not overlaps(args[loop.inputs + j], size * loop.out_size[j],
                                       args[k], size * 8)
    if direct:
        for k in range(loop.inputs):
            ins[k] = <const uint64_t*>args[k]
        for j in range(loop.outputs):
            outs[j] = args[loop.inputs + j]
        bad = loop.rows(ins, outs, size, loop.limit)
        if bad >= 0:
            report(loop, ins, bad)
            blank(loop, args, steps, bad, size)
        return
    for k in range(loop.inputs):
        ins[k] = gathered[k]
    for j in range(loop.outputs):
        outs[j] = <char*>answers[j]
    start = 0
    while start < size:
        count = size - start if size - start < BLOCK else BLOCK
        for k in range(loop.inputs):
            for i in range(count):
                memcpy(&gathered[k][i], args[k] + (start + i) * steps[k], 8)
        bad = loop.rows(ins, outs, count, loop.limit)
        for j in range(loop.outputs):
            width = loop.out_size[j]
            for i in range(count if bad < 0 else bad):
                memcpy(args[loop.inputs + j] + (start + i) * steps[loop.inputs + j],
                       outs[j] + i * width, width)
        if bad >= 0:
            report(loop, ins, bad)
            blank(loop, args, steps, start + bad, size)
            return
        start += count


cdef char TYPE_OF[2]
TYPE_OF[0] = cnp.NPY_UINT64
TYPE_OF[1] = cnp.NPY_INT64


def make_ufunc(str kernel, str name, str doc, int inputs, tuple outputs, uint64_t limit, refusal):
    """A numpy ufunc `name` of the kernel declared as `kernel`: `inputs` integer
    inputs (int64 and uint64 loops; numpy casts smaller integer types safely into
    them), outputs of the numpy types `outputs` (bool, uint8, int64, uint64),
    each input held to `limit` (and to 2**63 - 1 in a loop with a signed input).
    refusal(argument, value) makes the exception for a value the kernel refuses."""
    cdef Rows rows = rows_named(kernel)
    cdef int outs = len(outputs), combos = 1 << inputs, c, k, j, signs
    cdef int nargs = inputs + outs
    # uint64 first, then int64: numpy takes the first loop its inputs cast to
    # safely, so int64 inputs (and every smaller type) take the int64 loop
    cdef int order[4]
    if inputs == 2:
        order[0], order[1], order[2], order[3] = 3, 0, 1, 2
    else:
        order[0], order[1] = 1, 0
    assert 1 <= inputs <= 2 and 1 <= outs <= 2
    cdef cnp.PyUFuncGenericFunction* functions = <cnp.PyUFuncGenericFunction*>malloc(
        combos * sizeof(cnp.PyUFuncGenericFunction))
    cdef void** data = <void**>malloc(combos * sizeof(void*))
    cdef char* types = <char*>malloc(combos * nargs)
    cdef Loop* loops = <Loop*>calloc(combos, sizeof(Loop))
    if functions == NULL or data == NULL or types == NULL or loops == NULL:
        raise MemoryError()
    # the ufunc keeps these for as long as the process lives (as numpy's own do)
    REFUSALS.append(refusal)
    names = name.encode()
    docs = doc.encode()
    KEEP.append((names, docs))
    for c in range(combos):
        signs = order[c]
        loops[c].rows = rows
        loops[c].inputs = inputs
        loops[c].outputs = outs
        loops[c].signed_inputs = signs
        loops[c].limit = min(limit, <uint64_t>0x7FFFFFFFFFFFFFFF) if signs else limit
        loops[c].handler = len(REFUSALS) - 1
        for k in range(inputs):
            types[c * nargs + k] = TYPE_OF[(signs >> k) & 1]
        for j in range(outs):
            types[c * nargs + inputs + j] = outputs[j]
            loops[c].out_size[j] = 1 if outputs[j] in (cnp.NPY_BOOL, cnp.NPY_UINT8) else 8
        functions[c] = elementwise_loop
        data[c] = &loops[c]
    return cnp.PyUFunc_FromFuncAndData(functions, data, types, combos, inputs, outs,
                                       cnp.PyUFunc_None, names, docs, 0)


cdef list KEEP = []  # the names and docs the ufuncs point to
