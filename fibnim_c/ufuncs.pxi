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


# Generalized ufuncs over positions of power-of-two Nim: the piles on the last
# axis, signature (k),()->() with the bound r, (k)->() without (Bouton's Nim),
# and two outputs (the pile, the take) for the winning move. Each row is read
# with its strides (the two-pile is_p of contiguous rows goes to the SIMD
# kernel); a row's answers are written after its last read.

cdef struct PileLoop:
    bint bounded  # an input r after the piles
    bint moves  # outputs (pile, take) as int64, else one bool
    bint signed_piles
    bint signed_bound
    uint64_t limit
    Py_ssize_t handler  # its index in REFUSALS


cdef inline uint64_t read_at(const char* at) noexcept nogil:
    cdef uint64_t value
    memcpy(&value, at, 8)  # numpy's buffers need not be aligned
    return value


cdef void report_row(const PileLoop* loop, char** args, const cnp.npy_intp* steps,
                     Py_ssize_t row, Py_ssize_t k, Py_ssize_t pile_step) noexcept with gil:
    # the first value of the row above the limit (a pile, then r), read again
    global loop_failed
    cdef Py_ssize_t j
    cdef uint64_t value = 0
    cdef int argument = 0
    cdef bint found = False
    cdef bint signed_value
    cdef object number
    loop_failed = 1
    if PyErr_Occurred() != NULL:
        return
    for j in range(k):
        value = read_at(args[0] + row * steps[0] + j * pile_step)
        if value > loop.limit:
            found = True
            break
    if not found and loop.bounded:
        value = read_at(args[1] + row * steps[1])
        argument = 1
    signed_value = loop.signed_bound if argument else loop.signed_piles
    if signed_value:  # two statements: one conditional expression is unsigned
        number = <int64_t>value
    else:
        number = value
    try:
        error = REFUSALS[loop.handler](argument, number)
    except BaseException as raised:
        error = raised
    PyErr_SetObject(type(error), error)


cdef struct PileRows:
    # one call's arrays: numpy's pointers and steps, in a struct of locals (a
    # store through a char* may alias anything, and would reload numpy's
    # arrays of them per row)
    const char* piles
    const char* bounds  # NULL: no bound (Bouton's Nim)
    char* first  # is_p's answers, or the move's piles
    char* second  # the move's takes
    Py_ssize_t row_step, pile_step, bound_step, first_step, second_step, k
    uint64_t limit


cdef inline uint64_t xor_of(const PileRows* a, Py_ssize_t i, Py_ssize_t pile_step,
                            bint bounded, uint64_t* top) noexcept nogil:
    # row i's xor; *top becomes the largest of its piles and of its bound
    cdef const char* row = a.piles + i * a.row_step
    cdef uint64_t x = 0, n, most = read_at(a.bounds + i * a.bound_step) if bounded else 0
    cdef Py_ssize_t j
    for j in range(a.k):
        n = read_at(row + j * pile_step)
        x ^= n
        most = most if most > n else n
    top[0] = most
    return x


cdef inline uint64_t bound_of(const PileRows* a, Py_ssize_t i, bint bounded) noexcept nogil:
    # the largest take allowed: any at all in Bouton's Nim
    return read_at(a.bounds + i * a.bound_step) if bounded else <uint64_t>-1


cdef inline Py_ssize_t is_p_of_rows(const PileRows* a, Py_ssize_t start, Py_ssize_t size,
                                    Py_ssize_t pile_step, bint bounded) noexcept nogil:
    # inlined with constant pile_step and bounded, a loop of its own for each
    cdef Py_ssize_t i
    cdef uint64_t x, top
    for i in range(start, size):
        x = xor_of(a, i, pile_step, bounded, &top)
        if top > a.limit:
            return i
        a.first[i * a.first_step] = (x == 0) | ((x & (0 - x)) > bound_of(a, i, bounded))
    return -1


cdef inline void put_move(const PileRows* a, Py_ssize_t i, int64_t pile, int64_t take) noexcept nogil:
    memcpy(a.first + i * a.first_step, &pile, 8)
    memcpy(a.second + i * a.second_step, &take, 8)


cdef inline Py_ssize_t moves_of_rows(const PileRows* a, Py_ssize_t start, Py_ssize_t size,
                                     Py_ssize_t pile_step, bint bounded) noexcept nogil:
    cdef Py_ssize_t i, j, chosen
    cdef uint64_t x, top, n = 0, lowest
    cdef const char* row
    for i in range(start, size):
        x = xor_of(a, i, pile_step, bounded, &top)
        if top > a.limit:
            return i
        lowest = x & (0 - x)
        if x == 0 or lowest > bound_of(a, i, bounded):
            put_move(a, i, -1, -1)
            continue
        chosen = -1
        row = a.piles + i * a.row_step
        for j in range(a.k):
            n = read_at(row + j * pile_step)  # read again, so checked again
            if n > a.limit:
                return i
            if (n ^ x) < n:
                chosen = j
                break
        if chosen < 0:  # a row changed since its first read: no pile to take from
            put_move(a, i, -1, -1)
        else:
            put_move(a, i, chosen, <int64_t>(lowest if bounded else n - (n ^ x)))
    return -1


cdef void piles_loop(char** args, const cnp.npy_intp* dimensions, const cnp.npy_intp* steps,
                     void* data) noexcept nogil:
    cdef const PileLoop* loop = <const PileLoop*>data
    cdef bint bounded = loop.bounded, contiguous
    cdef Py_ssize_t size = dimensions[0], start = 0, bad
    cdef int first_out = 1 + bounded
    cdef int nargs = first_out + (2 if loop.moves else 1)
    cdef const Path* path = current_path()
    cdef PileRows a
    a.piles = args[0]
    a.bounds = args[1] if bounded else NULL
    a.first = args[first_out]
    a.second = args[first_out + 1] if loop.moves else NULL
    a.row_step = steps[0]
    a.bound_step = steps[1] if bounded else 0
    a.first_step = steps[first_out]
    a.second_step = steps[first_out + 1] if loop.moves else 0
    a.pile_step = steps[nargs]
    a.k = dimensions[1]
    a.limit = loop.limit
    if loop_failed and failed_before():
        blank_rows(args, steps, first_out, nargs, 0, size, 8 if loop.moves else 1)
        return
    contiguous = a.pile_step == 8
    if loop.moves:
        if bounded:
            bad = (moves_of_rows(&a, 0, size, 8, True) if contiguous
                   else moves_of_rows(&a, 0, size, a.pile_step, True))
        else:
            bad = (moves_of_rows(&a, 0, size, 8, False) if contiguous
                   else moves_of_rows(&a, 0, size, a.pile_step, False))
    else:
        if (a.k == 2 and bounded and path.power_pairs != NULL and a.row_step == 16
                and contiguous and a.bound_step == 8 and a.first_step == 1
                and (<size_t>a.piles) % 8 == 0 and (<size_t>a.bounds) % 8 == 0):
            start = path.power_pairs(<const uint64_t*>a.piles, <const uint64_t*>a.bounds,
                                     <uint8_t*>a.first, size, a.limit)
        if bounded:
            bad = (is_p_of_rows(&a, start, size, 8, True) if contiguous
                   else is_p_of_rows(&a, start, size, a.pile_step, True))
        else:
            bad = (is_p_of_rows(&a, start, size, 8, False) if contiguous
                   else is_p_of_rows(&a, start, size, a.pile_step, False))
    if bad >= 0:
        report_row(loop, args, steps, bad, a.k, a.pile_step)
        blank_rows(args, steps, first_out, nargs, bad, size, 8 if loop.moves else 1)


cdef inline void blank_rows(char** args, const cnp.npy_intp* steps, int first, int stop,
                            Py_ssize_t start, Py_ssize_t size, int width) noexcept nogil:
    # a failed call's outputs from the refused row on hold zeros, not buffers
    cdef int j
    cdef Py_ssize_t i
    for j in range(first, stop):
        for i in range(start, size):
            memset(args[j] + i * steps[j], 0, width)


def make_pile_ufunc(str name, str doc, bint bounded, bint moves, uint64_t limit, refusal):
    """A numpy gufunc `name` of power-of-two Nim over the last axis: (k),()->()
    (bounded: the piles and r) or (k)->(), with one bool output, or two int64
    ones (moves: the pile and the take, -1 where there is none). int64 and
    uint64 loops; each value held to `limit` (and to 2**63 - 1 where signed).
    refusal(argument, value) makes the exception for a refused value."""
    cdef int inputs = 1 + bounded, outs = 2 if moves else 1
    cdef int combos = 1 << inputs, nargs = inputs + outs, c, j, signs
    cdef int order[4]
    if inputs == 2:
        order[0], order[1], order[2], order[3] = 3, 0, 1, 2
    else:
        order[0], order[1] = 1, 0
    cdef cnp.PyUFuncGenericFunction* functions = <cnp.PyUFuncGenericFunction*>malloc(
        combos * sizeof(cnp.PyUFuncGenericFunction))
    cdef void** data = <void**>malloc(combos * sizeof(void*))
    cdef char* types = <char*>malloc(combos * nargs)
    cdef PileLoop* loops = <PileLoop*>calloc(combos, sizeof(PileLoop))
    if functions == NULL or data == NULL or types == NULL or loops == NULL:
        raise MemoryError()
    REFUSALS.append(refusal)
    names = name.encode()
    docs = doc.encode()
    signature = ("(k),()->" if bounded else "(k)->") + ("(),()" if moves else "()")
    signatures = signature.encode()
    KEEP.append((names, docs, signatures))
    for c in range(combos):
        signs = order[c]
        loops[c].bounded = bounded
        loops[c].moves = moves
        loops[c].signed_piles = signs & 1
        loops[c].signed_bound = (signs >> 1) & 1
        loops[c].limit = min(limit, <uint64_t>0x7FFFFFFFFFFFFFFF) if signs else limit
        loops[c].handler = len(REFUSALS) - 1
        for j in range(inputs):
            types[c * nargs + j] = TYPE_OF[(signs >> j) & 1]
        for j in range(inputs, nargs):
            types[c * nargs + j] = cnp.NPY_INT64 if moves else cnp.NPY_BOOL
        functions[c] = piles_loop
        data[c] = &loops[c]
    return cnp.PyUFunc_FromFuncAndDataAndSignature(
        functions, data, types, combos, inputs, outs, cnp.PyUFunc_None, names, docs, 0,
        signatures)
