package cerr

import "syscall"

// EAI are the getaddrinfo(3) codes of glibc's netdb.h (negative, part of
// the Linux ABI), by value: rdma_getaddrinfo reports name-resolution
// failures with them.
var EAI = map[int]string{
	-1: "EAI_BADFLAGS", -2: "EAI_NONAME", -3: "EAI_AGAIN", -4: "EAI_FAIL",
	-5: "EAI_NODATA", -6: "EAI_FAMILY", -7: "EAI_SOCKTYPE", -8: "EAI_SERVICE",
	-9: "EAI_ADDRFAMILY", -10: "EAI_MEMORY", -11: "EAI_SYSTEM", -12: "EAI_OVERFLOW",
	-100: "EAI_INPROGRESS", -101: "EAI_CANCELED", -102: "EAI_NOTCANCELED",
	-103: "EAI_ALLDONE", -104: "EAI_INTR", -105: "EAI_IDN_ENCODE",
}

// EAIOrMinusOneErrno checks rc of a function following zero_or_minus_one_errno
// that may also report a getaddrinfo(3) failure (rdma_getaddrinfo): 0 on
// success; -1 with errno set, where a negative errno is an EAI_* code; or
// the EAI_* code as the result itself. An EAI_* failure carries the code and
// its name (Code, Name), and unwraps to nothing; errors.Is matches it
// against the package's EAI sentinels.
func EAIOrMinusOneErrno(fn string, rc int32, errno syscall.Errno) error {
	switch {
	case rc == 0:
		return nil
	case rc == -1 && int32(errno) >= 0:
		return &Error{Func: fn, Errno: errno, Code: -1}
	case rc == -1:
		rc = int32(errno)
	}
	return &Error{Func: fn, Code: int(rc), Name: EAI[int(rc)]}
}
