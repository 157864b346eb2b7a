package bench

import (
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

// Result blocks as perftest 25.01 prints them in the guest.
const (
	sendLatOut = ` #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] 
 64      300          112.35         44299.68      6643.36  	       7177.25     	3700.92		22059.70 		44299.68
`
	writeBWOut = ` #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]
 64         5000             0.67               0.15   		     0.002393
`
	noTSCOut = ` #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] 
 64      200          inf            inf          inf      	       inf         	-nan   		inf     		inf    
`
)

func TestPerftestColumn(t *testing.T) {
	v, err := perftestColumn(sendLatOut, "t_avg[usec]")
	require.NoError(t, err)
	assert.Equal(t, 7177.25, v)
	v, err = perftestColumn(sendLatOut, "99.9% percentile[usec]")
	require.NoError(t, err)
	assert.Equal(t, 44299.68, v)
	v, err = perftestColumn(writeBWOut, "MsgRate[Mpps]")
	require.NoError(t, err)
	assert.Equal(t, 0.002393, v)
	v, err = perftestColumn(writeBWOut, "BW average[MiB/sec]")
	require.NoError(t, err)
	assert.Equal(t, 0.15, v)

	_, err = perftestColumn(noTSCOut, "t_avg[usec]")
	require.ErrorContains(t, err, "TSC rate")
	_, err = perftestColumn(writeBWOut, "t_avg[usec]")
	require.ErrorContains(t, err, "no column")
}
