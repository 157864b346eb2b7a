module github.com/goverbs/goverbs

go 1.26.0

require (
	github.com/cavaliergopher/cpio v1.0.1
	github.com/vishvananda/netlink v1.3.1
	golang.org/x/sys v0.50.0
)

require github.com/vishvananda/netns v0.0.5 // indirect

require (
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
