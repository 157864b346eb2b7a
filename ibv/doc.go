package ibv

//go:generate go run ../gen/cmd/goverbs-gen -pkg ibv
