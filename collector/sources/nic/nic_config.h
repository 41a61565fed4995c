/* A nic source's settings (`type: nic`; key table nic_keys.c,
 * docs/CONFIG.md "nic"). */
#ifndef FSC_NIC_CONFIG_H
#define FSC_NIC_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "model/profile.h"

struct fsc_nic_device {
    const char *rdma;   /* "mlx5_0" */
    const char *netdev; /* "ens1f0np0"; NULL: no ethtool / net statistics */
    uint32_t port;      /* RDMA port number; default 1 */
    struct fsc_config_mark mark;
};

struct fsc_nic_config {
    const char *device;     /* host label; default the source name */
    const char *sysfs_root; /* default "/": where the host's /sys is mounted ("<root>/sys") */
    bool fixture;           /* test-only: sysfs_root is a fixture tree with no kernel behind
                             * it (no SIOCETHTOOL: ethtool statistics and the host check
                             * from files under the root) */
    int64_t interval_ns;    /* default 100 ms, at least 10 ms */
    bool auto_devices;      /* discover every RDMA device; default true without devices */
    struct fsc_nic_device *devices;
    size_t n_devices;
    bool ethtool;           /* read SIOCETHTOOL stats; default true (false with fixture) */
    bool pcie;              /* read PCIe link status and AER; default true */
    const char *cable_plan; /* path to cables.txt, or NULL */
    uint32_t node;          /* this host's node number in the cable plan; 0 = none */
};

/* The mlx5 profile (profile_mlx5.c): the type's default. */
extern const struct fsc_profile fsc_profile_mlx5;

/* The kind of this source type (its key table). */
extern const struct fsc_config_kind fsc_nic_kind;

/* The settings of a source of this type, or NULL when sc is of another. */
const struct fsc_nic_config *fsc_nic_config_of(const struct fsc_source_config *sc);

#endif
