package mlx4dv

//go:generate go run ../gen/cmd/goverbs-gen -pkg mlx4dv
