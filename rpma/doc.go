package rpma

//go:generate go run ../gen/cmd/goverbs-gen -pkg rpma
