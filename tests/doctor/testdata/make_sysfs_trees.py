#!/usr/bin/env python3
"""Writes the recorded sysfs trees under sysfs/ (run from this folder).

Each tree reproduces a field case as the kernel would lay it out: plain
files for attributes, relative symbolic links for class entries and
`device` links (as real sysfs has), so SysfsReader resolves them inside the
root. Values the seeds give are used as given; values they do not give
(PCIe links of seeds 000/001, PCI ids) are chosen not to bind and are marked
in README.md.
"""
import os
import shutil

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sysfs")


def write(tree, path, text):
    full = os.path.join(ROOT, tree, path.lstrip("/"))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text + "\n")


def link(tree, path, target_system_path):
    """A relative symlink at `path` pointing at `target_system_path`."""
    full = os.path.join(ROOT, tree, path.lstrip("/"))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    target = os.path.relpath(target_system_path, os.path.dirname(path))
    os.symlink(target, full)


def pci_function(tree, path, vendor, device, current, maximum, numa=None):
    if vendor is not None:
        write(tree, path + "/vendor", vendor)
        write(tree, path + "/device", device)
    write(tree, path + "/current_link_speed", current[0])
    write(tree, path + "/current_link_width", current[1])
    write(tree, path + "/max_link_speed", maximum[0])
    write(tree, path + "/max_link_width", maximum[1])
    if numa is not None:
        write(tree, path + "/numa_node", numa)


def rdma_port(tree, dev_path, port, state, phys, rate, layer, gids=(), ndevs=()):
    p = f"{dev_path}/ports/{port}"
    write(tree, p + "/state", state)
    write(tree, p + "/phys_state", phys)
    write(tree, p + "/rate", rate)
    write(tree, p + "/link_layer", layer)
    for index, (gid_type, gid) in enumerate(gids):
        write(tree, f"{p}/gid_attrs/types/{index}", gid_type)
        write(tree, f"{p}/gids/{index}", gid)
    for index, name in enumerate(ndevs):
        write(tree, f"{p}/gid_attrs/ndevs/{index}", name)


def netdev(tree, path, speed, mtu, operstate="up", device=None):
    write(tree, path + "/speed", speed)
    write(tree, path + "/mtu", mtu)
    write(tree, path + "/duplex", "full")
    write(tree, path + "/operstate", operstate)
    if device:
        link(tree, path + "/device", device)
    link(tree, "/sys/class/net/" + os.path.basename(path), path)


def host(tree, governor=None, hugepages=(("2048", "0", "0"),), thp="always [madvise] never"):
    write(tree, "/proc/meminfo", "MemTotal:       131072000 kB\nHugePages_Total:       0\n"
          "HugePages_Free:        0\nHugepagesize:       2048 kB")
    for size, total, free in hugepages:
        write(tree, f"/sys/kernel/mm/hugepages/hugepages-{size}kB/nr_hugepages", total)
        write(tree, f"/sys/kernel/mm/hugepages/hugepages-{size}kB/free_hugepages", free)
    write(tree, "/sys/kernel/mm/transparent_hugepage/enabled", thp)
    write(tree, "/sys/devices/system/cpu/online", "0-1")
    if governor:
        for cpu in ("cpu0", "cpu1"):
            write(tree, f"/sys/devices/system/cpu/{cpu}/cpufreq/scaling_governor", governor)
    else:
        write(tree, "/sys/devices/system/cpu/cpu0/uevent", "")


IPV4_GID = "0000:0000:0000:0000:0000:ffff:"
LINK_LOCAL = "fe80:0000:0000:0000:"


def seed001():
    t = "seed001_hns_25g_at_10g"
    root_port = "/sys/devices/pci0000:7c/0000:7c:00.0"
    nic = root_port + "/0000:7d:00.2"
    pci_function(t, root_port, "0x19e5", "0xa121", ("8.0 GT/s PCIe", "16"), ("8.0 GT/s PCIe", "16"))
    pci_function(t, nic, "0x19e5", "0xa222", ("8.0 GT/s PCIe", "16"), ("8.0 GT/s PCIe", "16"), numa="0")
    ib = nic + "/infiniband/hns_2"
    rdma_port(t, ib, 1, "4: ACTIVE", "5: LinkUp", "10 Gb/sec (1X FDR10)", "Ethernet",
              gids=[("RoCE v2", IPV4_GID + "c0a8:680a")], ndevs=["enp125s0f2"])
    link(t, ib + "/device", nic)
    link(t, "/sys/class/infiniband/hns_2", ib)
    netdev(t, nic + "/net/enp125s0f2", "10000", "4200", device=nic)
    host(t, governor="performance", hugepages=(("2048", "1024", "1024"),))


def seed002():
    t = "seed002_cx2_qdr_gen2_x4"
    root_port = "/sys/devices/pci0000:00/0000:00:1c.0"
    nic = root_port + "/0000:03:00.0"
    # The old kernel's speed spelling ("5 GT/s") on the bridge, the new one on the NIC.
    pci_function(t, root_port, "0x8086", "0x1c10", ("5 GT/s", "4"), ("5 GT/s", "4"))
    pci_function(t, nic, "0x15b3", "0x673c", ("5.0 GT/s PCIe", "4"), ("5.0 GT/s PCIe", "8"), numa="-1")
    ib = nic + "/infiniband/mlx4_0"
    rdma_port(t, ib, 1, "1: DOWN", "2: Polling", "10 Gb/sec (4X)", "InfiniBand")
    rdma_port(t, ib, 2, "4: ACTIVE", "5: LinkUp", "40 Gb/sec (4X QDR)", "InfiniBand")
    link(t, ib + "/device", nic)
    link(t, "/sys/class/infiniband/mlx4_0", ib)
    host(t, governor="powersave")


def seed000():
    t = "seed000_100g_roce"
    root_port = "/sys/devices/pci0000:b0/0000:b0:02.0"
    nic = root_port + "/0000:b1:00.0"
    # No vendor/device files here: the seed gives no PCI ids, and the reader
    # must print what it lacks as unknown.
    pci_function(t, root_port, None, None, ("16.0 GT/s PCIe", "8"), ("16.0 GT/s PCIe", "8"))
    pci_function(t, nic, None, None, ("16.0 GT/s PCIe", "8"), ("16.0 GT/s PCIe", "8"), numa="0")
    ib = nic + "/infiniband/yusur_0"
    rdma_port(t, ib, 1, "4: ACTIVE", "5: LinkUp", "100 Gb/sec (4X EDR)", "Ethernet",
              gids=[("RoCE v1", LINK_LOCAL + "0a5c:00ff:fe00:0001"), ("RoCE v2", IPV4_GID + "c0aa:010b")],
              ndevs=["ens1f0", "ens1f0"])
    link(t, ib + "/device", nic)
    link(t, "/sys/class/infiniband/yusur_0", ib)
    netdev(t, nic + "/net/ens1f0", "100000", "9000", device=nic)
    host(t, governor="performance", hugepages=(("2048", "4096", "4096"), ("524288", "2", "2")))


def veth_rxe():
    t = "veth_rxe"
    ib = "/sys/devices/virtual/infiniband/rxe0"
    write(t, ib + "/parent", "vethA")
    rdma_port(t, ib, 1, "4: ACTIVE", "5: LinkUp", "10 Gb/sec (1X FDR10)", "Ethernet",
              gids=[("RoCE v2", LINK_LOCAL + "a8c1:abff:fe00:0001"), ("RoCE v2", IPV4_GID + "0a00:0001")],
              ndevs=["vethA", "vethA"])
    link(t, "/sys/class/infiniband/rxe0", ib)
    netdev(t, "/sys/devices/virtual/net/vethA", "10000", "1500")
    host(t, thp="[always] madvise never")


def qemu_virtio_rxe():
    t = "qemu_virtio_rxe"
    root_port = "/sys/devices/pci0000:00/0000:00:02.0"
    nic = root_port + "/0000:01:00.0"
    pci_function(t, root_port, "0x1b36", "0x000c", ("2.5 GT/s PCIe", "1"), ("5.0 GT/s PCIe", "4"))
    pci_function(t, nic, "0x1af4", "0x1041", ("2.5 GT/s PCIe", "1"), ("2.5 GT/s PCIe", "1"), numa="-1")
    virtio = nic + "/virtio1"
    write(t, "/sys/bus/virtio/drivers/virtio_net/uevent", "DRIVER=virtio_net")
    link(t, virtio + "/driver", "/sys/bus/virtio/drivers/virtio_net")
    netdev(t, virtio + "/net/eth0", "10000", "9000", device=virtio)
    ib = "/sys/devices/virtual/infiniband/rxe0"
    write(t, ib + "/parent", "eth0")
    rdma_port(t, ib, 1, "4: ACTIVE", "5: LinkUp", "10 Gb/sec (1X FDR10)", "Ethernet",
              gids=[("RoCE v2", IPV4_GID + "0a00:020f")], ndevs=["eth0"])
    link(t, "/sys/class/infiniband/rxe0", ib)
    host(t, thp="[always] madvise never")


if __name__ == "__main__":
    shutil.rmtree(ROOT, ignore_errors=True)
    for make in (seed001, seed002, seed000, veth_rxe, qemu_virtio_rxe):
        make()
