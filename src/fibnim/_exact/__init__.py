"""Exact arithmetic on Python ints, any size: the reference every kernel is held to.

One module per topic. The pure twins' kernels and the public scalar and
object-array paths use these; nothing here knows about arrays or checks input.
"""
