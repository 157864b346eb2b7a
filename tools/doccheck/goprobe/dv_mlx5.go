//go:build linux

//lint:file-ignore U1000 used by the probe snippets, which doccheck generates into zprobes.go (go build -overlay)

package main

import (
	"unsafe"

	"github.com/goverbs/goverbs/mlx5dv"
)

// The mlx5 direct-verbs objects rxe's context can have in Go (tools/doccheck/probes/
// mlx5.yaml): imports of another process's DEVX objects, which libmlx5 makes on any
// device's context without checking it; each is released after the probe. (A steering
// domain, which libmlx5 makes there too, the guard of mlx5dv.DrDomainCreate refuses.)

// keepAction returns err; on success the action must be usable, and it is destroyed after
// the probe.
func keepAction(a *mlx5dv.DrAction, err error) error {
	if err != nil {
		return err
	}
	if a == nil {
		return errNoResult
	}
	onExit(a.Destroy)
	return nil
}

// exportData is zeroed memory for an export's attributes (mlx5dv_get_export_sizes: each
// under 64 bytes in rdma-core 65), in mmap'd memory.
func exportData() unsafe.Pointer { return unsafe.Pointer(&cmem(256)[0]) }

// devxImported is a DEVX object imported on rxe's context from zeroed export data; it is
// unimported after the probe.
func devxImported() *mlx5dv.DevxObj {
	o, err := mlx5dv.DevxObjImport(ctx(), exportData())
	must("devx import", err)
	onExit(o.Unimport)
	return o
}

// umemImported is a DEVX umem imported on rxe's context from zeroed export data.
func umemImported() *mlx5dv.DevxUmem {
	u, err := mlx5dv.DevxUmemImport(ctx(), exportData())
	must("umem import", err)
	onExit(u.Unimport)
	return u
}

// varImported is a VirtIO access region imported on rxe's context from zeroed export data.
func varImported() *mlx5dv.Var {
	v, err := mlx5dv.VarImport(ctx(), exportData())
	must("var import", err)
	onExit(v.Unimport)
	return v
}
