package efadv

//go:generate go run ../gen/cmd/goverbs-gen -pkg efadv
