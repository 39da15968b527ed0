package runner

// The tests run schedules in virtual time (testing/synctest), where a sleep in a system call
// would hold the virtual clock: they sleep on Go's timers. BenchmarkPoolLag turns precise sleeps
// back on to measure them.
func init() { preciseSleep = false }

// SetPreciseSleep lets a benchmark measure the precise sleeps.
func SetPreciseSleep(on bool) { preciseSleep = on }
