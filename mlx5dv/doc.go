package mlx5dv

//go:generate go run ../gen/cmd/goverbs-gen -pkg mlx5dv
