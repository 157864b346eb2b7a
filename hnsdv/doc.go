package hnsdv

//go:generate go run ../gen/cmd/goverbs-gen -pkg hnsdv
