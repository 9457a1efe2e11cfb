// Command leinaoprobe is a LeinaoPAI task in the style of seed 000's
// mnist_replica.py, for the -docker test image: it rebuilds the cluster
// from --ps_hosts/--worker_hosts (IPs only) and PAI_PORT_LIST_<role>_<i>
// ("ip,p1,p2,p3"), listens on 10001 inside its container, and reaches every
// other task at ip:p1. PS serve until stopped; workers exit 0 once every
// peer answered and every other worker reached them.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"
)

// long: a test probe that reads top to bottom as the steps a LeinaoPAI
// task takes (parse, listen, dial every peer, report); split up it would
// only be harder to follow.
func main() {
	ps := flag.String("ps_hosts", "", "")
	workers := flag.String("worker_hosts", "", "")
	job := flag.String("job_name", "", "")
	index := flag.Int("task_index", 0, "")
	flag.Parse()
	me := fmt.Sprintf("%s:%d", *job, *index)
	peers := map[string]string{}
	for role, hosts := range map[string]string{"ps": *ps, "worker": *workers} {
		for i, ip := range strings.Split(hosts, ",") {
			if ip == "" {
				continue
			}
			f := strings.Split(os.Getenv(fmt.Sprintf("PAI_PORT_LIST_%s_%d", role, i)), ",")
			if len(f) != 4 || f[0] != ip {
				fmt.Printf("%s: bad PAI_PORT_LIST_%s_%d=%q for host %s\n", me, role, i, strings.Join(f, ","), ip)
				os.Exit(1)
			}
			peers[fmt.Sprintf("%s:%d", role, i)] = ip + ":" + f[1]
		}
	}
	l, err := net.Listen("tcp", ":10001")
	if err != nil {
		fmt.Printf("%s: %v\n", me, err)
		os.Exit(1)
	}
	var mu sync.Mutex
	heard := map[string]bool{}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				line, _ := bufio.NewReader(c).ReadString('\n')
				fmt.Fprintf(c, "ACK %s\n", me)
				mu.Lock()
				heard[strings.TrimSpace(line)] = true
				mu.Unlock()
			}()
		}
	}()
	fmt.Printf("%s: listening on 10001, reachable at %s\n", me, peers[me])
	if *job == "ps" {
		select {}
	}
	deadline := time.Now().Add(60 * time.Second)
	for name, addr := range peers {
		if name == me {
			continue
		}
		for {
			c, err := net.DialTimeout("tcp", addr, 2*time.Second)
			if err == nil {
				fmt.Fprintf(c, "%s\n", me)
				ack, _ := bufio.NewReader(c).ReadString('\n')
				c.Close()
				if strings.HasPrefix(ack, "ACK ") {
					break
				}
			}
			if time.Now().After(deadline) {
				fmt.Printf("%s: cannot reach %s at %s\n", me, name, addr)
				os.Exit(2)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for {
		mu.Lock()
		n := 0
		for name := range peers {
			if strings.HasPrefix(name, "worker:") && name != me && heard[name] {
				n++
			}
		}
		mu.Unlock()
		if n == strings.Count(*workers, ",") {
			break
		}
		if time.Now().After(deadline) {
			fmt.Printf("%s: not every worker reached me\n", me)
			os.Exit(3)
		}
		time.Sleep(50 * time.Millisecond)
	}
	fmt.Printf("%s: mesh ok\n", me)
}
