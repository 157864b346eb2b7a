package rdmacm

import "github.com/goverbs/goverbs/internal/cerr"

// The getaddrinfo(3) codes rdma_getaddrinfo fails with when name resolution
// fails ([Getaddrinfo], [CMID.ResolveAddrinfo]): the error carries the code
// and its EAI_* name ("rdma_getaddrinfo: EAI_NONAME (-2)"), and errors.Is
// matches it against these sentinels. Their values are glibc's (netdb.h).
var (
	EAIBadFlags   = eai(-1)  // EAI_BADFLAGS: invalid hints flags
	EAINoName     = eai(-2)  // EAI_NONAME: node or service unknown
	EAIAgain      = eai(-3)  // EAI_AGAIN: temporary failure in name resolution
	EAIFail       = eai(-4)  // EAI_FAIL: non-recoverable failure in name resolution
	EAINoData     = eai(-5)  // EAI_NODATA: no address for the name
	EAIFamily     = eai(-6)  // EAI_FAMILY: address family not supported
	EAISockType   = eai(-7)  // EAI_SOCKTYPE: socket type not supported
	EAIService    = eai(-8)  // EAI_SERVICE: service not supported for the socket type
	EAIAddrFamily = eai(-9)  // EAI_ADDRFAMILY: no address of the family for the name
	EAIMemory     = eai(-10) // EAI_MEMORY: out of memory
	EAISystem     = eai(-11) // EAI_SYSTEM: a system error (errno)
	EAIOverflow   = eai(-12) // EAI_OVERFLOW: argument buffer overflow
)

func eai(code int) *Error { return &Error{Code: code, Name: cerr.EAI[code]} }
