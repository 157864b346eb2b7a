package cycles

// Now reads the time-stamp counter (RDTSC).
func Now() uint64
