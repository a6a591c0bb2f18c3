/* Per-thread state of fibnim's ufunc loops.
 *
 * numpy calls a ufunc's inner loop once per buffer, and a legacy loop cannot
 * tell numpy to stop: after a loop has set an error, the later calls of the
 * same ufunc call must do nothing but blank their outputs. The flag says that
 * this thread's loop failed; a loop that finds it set and no error pending
 * belongs to a new call and clears it. */
#ifndef FIBNIM_UFUNC_STATE_H
#define FIBNIM_UFUNC_STATE_H

#if defined(_MSC_VER)
#define FIBNIM_THREAD_LOCAL __declspec(thread)
#else
#define FIBNIM_THREAD_LOCAL __thread
#endif

static FIBNIM_THREAD_LOCAL int fibnim_loop_failed = 0;

#endif
