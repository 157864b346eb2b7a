package manadv

//go:generate go run ../gen/cmd/goverbs-gen -pkg manadv
