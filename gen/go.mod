module github.com/goverbs/goverbs/gen

go 1.26.0

require (
	github.com/dave/jennifer v1.7.1
	github.com/goccy/go-yaml v1.19.2
	github.com/goverbs/goverbs v0.0.0
	github.com/stretchr/testify v1.12.1
	golang.org/x/net v0.62.0
	modernc.org/cc/v4 v4.34.0
	modernc.org/token v1.1.0
)

require (
	github.com/remyoudompheng/bigfft v0.0.0-20230129092748-24d4a6f8daec // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	modernc.org/mathutil v1.7.1 // indirect
	modernc.org/opt v0.2.0 // indirect
	modernc.org/sortutil v1.2.1 // indirect
	modernc.org/strutil v1.2.1 // indirect
)

replace github.com/goverbs/goverbs => ../
