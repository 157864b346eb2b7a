package emit

// Hand lists spec functions whose exported Go binding is written by hand
// in the package, with the file holding it: static inline helpers that
// build work requests in C memory and call other bindings, which no
// generated shape covers. The generator emits nothing for them and the
// coverage report names the file.
var Hand = map[string]string{}

// HandShims lists functions whose raw wrapper c_<name> is written by hand
// in the package (a static inline with a fallback the generator does not
// derive), with the file holding it; the exported API is generated on top
// of it as for any other raw wrapper.
var HandShims = map[string]string{}
