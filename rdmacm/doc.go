package rdmacm

//go:generate go run ../gen/cmd/goverbs-gen -pkg rdmacm
