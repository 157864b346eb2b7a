module github.com/goverbs/goverbs/bench

go 1.26.0

require github.com/goverbs/goverbs v0.0.0

require golang.org/x/sys v0.50.0 // indirect

replace github.com/goverbs/goverbs => ../
