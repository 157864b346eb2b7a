// Package ir is the intermediate representation of the goverbs generator: the
// C declarations of one Go package's headers (structs, unions, enums, integer
// macros, functions), with their C layout, merged across the rdma-core
// versions the generator reads. Emitters only read the IR; they never see cc
// ASTs.
package ir

// Version names an input root, e.g. "65" for rdma-core 65.
type Version string

// Package is everything the generator knows about one Go package.
type Package struct {
	Name     string    // Go package name, e.g. "ibv"
	Headers  []Header  // headers included, in order
	Structs  []*Struct // structs and unions, in source order; nested anonymous ones follow their parent
	Enums    []*Enum   // named and anonymous enums, in source order
	Consts   []*Const  // integer object-like macros, in source order
	Funcs    []*Func   // function declarations, in source order
	Macros   []*Macro  // function-like macros that name functions (renames, dispatchers)
	Skipped  []Skip    // declarations deliberately not emitted, with the reason
	Versions []Version // versions merged into this package, newest first
}

// Header is one #include of a package.
type Header struct {
	Path  string    // include path, e.g. "infiniband/verbs.h"
	Since Version   // oldest version that ships it
	In    []Version // versions that ship it
}

// Kind classifies an IR type.
type Kind int

// Kinds of types.
const (
	Void    Kind = iota
	Int          // integer of Size bytes, Signed or not
	Bool         // _Bool
	Float        // float or double
	Pointer      // pointer to Elem
	FuncPtr      // pointer to function (opaque address)
	Array        // Len elements of Elem
	Record       // struct or union named by Ref
	EnumRef      // enum named by Ref, of integer representation Size/Signed
)

// Type is a C type as far as layout and Go mapping need it.
type Type struct {
	Kind   Kind
	Size   int64
	Align  int64
	Signed bool
	Elem   *Type  // Pointer, Array
	Len    int64  // Array
	Ref    string // Record, EnumRef: the key of the Struct or Enum
	C      string // C spelling for diagnostics and generated C, e.g. "uint32_t"
	Char   bool   // Int: plain char (byte strings)
	Const  bool   `json:",omitempty"` // const-qualified (the pointee of a const pointer parameter)
	Sig    *Sig   `json:",omitempty"` // FuncPtr: the pointed-to function's signature
}

// Sig is the signature of a function pointer.
type Sig struct {
	Ret      Type
	Params   []Type
	Variadic bool
}

// Struct is a C struct or union.
type Struct struct {
	Key     string // unique key: "struct ibv_qp", "union ibv_gid", or parent key + "::" + member for anonymous types
	Tag     string // C tag, empty for anonymous
	Union   bool
	Size    int64
	Align   int64
	Fields  []*Field
	Opaque  bool   // incomplete in C: only usable through pointers
	Foreign bool   // declared outside the package's owned headers (libc, kernel uapi): emitted as sized opaque bytes
	Parent  string // key of the enclosing struct for anonymous/nested types
	File    string // declaring header, relative to the include root
	Line    int
	Doc     string
	In      []Version // versions declaring it
	SizeIn  map[Version]int64
	Aliases []string // typedef names and macros aliasing it (#define ibv_x ib_uverbs_x)
}

// Field is one member of a Struct.
type Field struct {
	Name   string // C member name; empty for an anonymous struct/union member
	Type   Type
	Offset int64
	Flex   bool // flexible array member
	Bits   int  // bit-field width, 0 if not a bit-field
	In     []Version
	// OffsetIn holds the offset in the versions where it differs from
	// Offset (verbs_context grows toward lower addresses).
	OffsetIn map[Version]int64 `json:",omitempty"`
	// SizeIn holds the member's size in the versions where it differs
	// (a reserved array shrunk to make room for a new member).
	SizeIn map[Version]int64 `json:",omitempty"`
}

// Enum is a C enum, named or anonymous.
type Enum struct {
	Key     string // "enum ibv_qp_type", or "enum <file>:<line>" when anonymous
	Tag     string
	Size    int64
	Signed  bool
	Flags   bool // values are bits: emitted as a bit type
	Foreign bool // declared outside the package's owned headers: fields use its integer type
	Values  []*EnumValue
	File    string
	Line    int
	In      []Version
	Aliases []string // macro names aliasing the tag, e.g. ibv_flow_action_esp_keymat
}

// EnumValue is one enumerator.
type EnumValue struct {
	Name  string
	Value int64 // two's complement for values above MaxInt64
	In    []Version
}

// Const is an integer object-like macro.
type Const struct {
	Name   string
	Value  int64 // two's complement bits
	Size   int64
	Signed bool
	File   string
	Line   int
	In     []Version
}

// Func is a function declaration.
type Func struct {
	Name   string
	Ret    Type
	Params []Param
	// Variadic reports a trailing "...".
	Variadic bool
	// Inline marks a static inline function: it has no symbol and needs a
	// generated C shim.
	Inline bool
	File   string
	Line   int
	In     []Version
	// Body describes a static inline function's definition.
	Body *Body `json:",omitempty"`
}

// Shape is how a static inline function does its work, which decides the
// shim generated for it.
type Shape string

// Shapes of static inline functions.
const (
	// ShapeCtxOp guards an op of struct verbs_context with
	// verbs_get_ctx_op and calls it, failing with EOPNOTSUPP when the
	// provider lacks it (ibv_create_cq_ex).
	ShapeCtxOp Shape = "ctx-op"
	// ShapeMemberCall calls through function-pointer members
	// (qp->context->ops.post_send, cq->read_opcode, qp->wr_send).
	ShapeMemberCall Shape = "member-call"
	// ShapeWrapper calls other functions, rewriting arguments
	// (___ibv_query_port, __ibv_reg_mr, rdma_post_send).
	ShapeWrapper Shape = "wrapper"
	// ShapePure computes its result without calls (ibv_cq_ex_to_cq).
	ShapePure Shape = "pure"
)

// Body summarises a static inline definition from its expanded tokens.
type Body struct {
	Shape       Shape
	Calls       []string // functions called
	MemberCalls []string // function-pointer members called through
	CtxOps      []string // verbs_context ops guarded by verbs_get_ctx_op
	Errno       bool     // reads or sets errno itself
	// Forward is set when the whole body is one call through a member
	// function pointer reached from a parameter, passing the parameters
	// in order: `return qp->context->ops.post_send(qp, wr, bad_wr);`.
	Forward *Forward `json:",omitempty"`
	// CtxForward is set when the body is `vctx = verbs_get_ctx_op(ctx,
	// op); if (!vctx) {fail} return vctx->op(params...);`.
	CtxForward *CtxForward `json:",omitempty"`
	// Sized is set when the whole body is one call of another function
	// passing the parameters in order and then a sizeof:
	// `return _mlx5dv_query_port(context, port_num, info, sizeof(*info));`.
	Sized *Sized `json:",omitempty"`
}

// Sized is a body that forwards its parameters to Func and adds the size of
// a record, so that the library can tell the layout the caller was built
// with.
type Sized struct {
	Func   string
	Return bool
	// Param is the parameter whose pointee's size is passed
	// (sizeof(*info)); Record the key of the record otherwise
	// (sizeof(struct mlx5dv_flow_action_attr)).
	Param  string `json:",omitempty"`
	Record string `json:",omitempty"`
}

// CtxForward is a body that forwards its parameters to an op of struct
// verbs_context after checking the provider has it.
type CtxForward struct {
	Root   string   // the parameter verbs_get_ctx starts from
	Path   []string // members from Root to the struct ibv_context pointer (empty: Root is it)
	Op     string   // the verbs_context member called
	Return bool
}

// Forward is a body that forwards its parameters through a member
// function pointer.
type Forward struct {
	Root   string   // the parameter the path starts from
	Path   []string // members from Root to the function pointer: context, ops, post_send
	Return bool     // the call's value is returned
}

// Param is one function parameter.
type Param struct {
	Name string
	Type Type
}

// Macro is a function-like macro with a lowercase name: a public name that
// renames or dispatches to functions (ibv_query_port -> ___ibv_query_port).
type Macro struct {
	Name    string
	Params  []string
	Body    string   // replacement list, tokens joined by single spaces
	Targets []string // declared functions named in the body
	File    string
	Line    int
	In      []Version
}

// Skip records a declaration that is deliberately not emitted.
type Skip struct {
	Name   string
	Reason string
}

// Has reports whether v is in vs.
func Has(vs []Version, v Version) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// Since is the oldest of vs given versions ordered newest first.
func Since(all, vs []Version) Version {
	var r Version
	for _, v := range all {
		if Has(vs, v) {
			r = v
		}
	}
	return r
}

// Struct returns the struct with key k, or nil.
func (p *Package) Struct(k string) *Struct {
	for _, s := range p.Structs {
		if s.Key == k {
			return s
		}
	}
	return nil
}

// Enum returns the enum with key k, or nil.
func (p *Package) Enum(k string) *Enum {
	for _, e := range p.Enums {
		if e.Key == k {
			return e
		}
	}
	return nil
}
