package main

import (
	"os"
	"strings"
)

// The default output for a device, as ibv_devinfo prints it (tabs shown as
// "→" here).
func Example_printDevice() {
	var b strings.Builder
	printDevice(&b, roceDevice(), false)
	os.Stdout.WriteString(strings.ReplaceAll(b.String(), "\t", "→"))
	// Output:
	// hca_id:→rxe_x
	// →transport:→→→InfiniBand (0)
	// →fw_ver:→→→→1.2.3
	// →node_guid:→→→0211:22ff:fe33:4455
	// →sys_image_guid:→→→0211:22ff:fe33:4456
	// →vendor_id:→→→0xffffff
	// →vendor_part_id:→→→7
	// →hw_ver:→→→→0x2A
	// →phys_port_cnt:→→→1
	// →→port:→1
	// →→→state:→→→PORT_DOWN (1)
	// →→→max_mtu:→→4096 (5)
	// →→→active_mtu:→→1024 (3)
	// →→→sm_lid:→→→0
	// →→→port_lid:→→0
	// →→→port_lmc:→→0x00
	// →→→link_layer:→→Ethernet
}
