module github.com/goverbs/goverbs/reliability

go 1.26.0

require (
	github.com/goverbs/goverbs v0.0.0
	golang.org/x/sys v0.50.0
)

replace github.com/goverbs/goverbs => ../
