//go:build linux && !rxe

package mlx5dv

import (
	"os"
	"testing"

	"github.com/goverbs/goverbs/internal/rxetest"
)

// TestMain compiles the Example functions without running them: they need the rxe test
// bed's devices, and run there (make test-rxe).
func TestMain(m *testing.M) { os.Exit(rxetest.RunWithoutExamples(m)) }
