package measure

// SetMergeHook lets tests run code while Drain merges, outside the recorder's lock.
func SetMergeHook(f func()) { mergeHook = f }
