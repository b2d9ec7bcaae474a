module github.com/headroom-sim/headroom

go 1.26.8

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/go-echarts/go-echarts/v2 v2.6.7
	github.com/spf13/pflag v1.1.0
	gonum.org/v1/gonum v0.17.0
	pgregory.net/rapid v1.3.0
)

require golang.org/x/tools v0.30.0 // indirect
