//go:build linux && cgo

package dl

/*
#cgo linux LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

// goverbs_dlopen opens name; on failure it returns NULL with dlerror's message copied into
// err. dlerror is per thread and its text lasts until the thread's next dl call: it is read
// and copied in the same C call as the dlopen, since two cgo calls of one goroutine may run
// on two threads (the message was once empty in a CI run).
static void *goverbs_dlopen(const char *name, char *err, size_t n) {
	void *h = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
	const char *e = h ? NULL : dlerror();
	size_t i = 0;
	if (!e) e = "dlopen failed without a message";
	for (; n && i < n - 1 && e[i]; i++) err[i] = e[i];
	if (n) err[i] = 0;
	return h;
}

// The file the dynamic loader opened for the library of handle h (its first
// member, l_name, of struct link_map: dlinfo's RTLD_DI_LINKMAP), or NULL.
static const char *goverbs_dlpath(void *h) {
	void *lm = NULL;
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL)
		return NULL;
	// struct link_map { ElfW(Addr) l_addr; char *l_name; ... }
	return ((const char **)lm)[1];
}
*/
import "C"

import "unsafe"

// Supported is whether this build can call C libraries: Linux with cgo.
const Supported = true

// sysOpen opens the shared object name: its handle, or nil and dlerror's message.
func sysOpen(name string) (unsafe.Pointer, string) {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var msg [256]C.char
	h := C.goverbs_dlopen(cn, &msg[0], C.size_t(len(msg)))
	if h == nil {
		return nil, C.GoString(&msg[0])
	}
	return h, ""
}

// sysPath is the file the loader opened for handle h, or "".
func sysPath(h unsafe.Pointer) string {
	p := C.goverbs_dlpath(h)
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// sysSym is the address of symbol name in handle h, or nil.
func sysSym(h unsafe.Pointer, name string) unsafe.Pointer {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	return C.dlsym(h, cn)
}
