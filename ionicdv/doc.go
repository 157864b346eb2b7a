package ionicdv

//go:generate go run ../gen/cmd/goverbs-gen -pkg ionicdv
