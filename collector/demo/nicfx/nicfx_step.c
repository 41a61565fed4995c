/* The counter model of the tool's fixtures: one step, in the order nicfx.h
 * numbers (reset, near-wrap, set, rate increments, storms and adds, link,
 * PCIe and AER). Exact: every increment is a floor of an exact fraction,
 * computed in 128 bits, and counters wrap modulo 2^width. */
#include "nicfx.h"

__extension__ typedef unsigned __int128 u128;

#define NEAR_WRAP_VALUE (((uint64_t)1 << 32) - 100)

/* floor(rate * mul * ms / div), for ms <= FSC_NICFX_DT_MS_MAX (fits 128 bits). */
static u128 scaled(const struct fsc_nicfx_rate *rate, uint64_t mul, int64_t ms, uint64_t div)
{
    return (u128)rate->num * mul * (uint64_t)ms / ((u128)rate->den * div);
}

/* Counter c of dev = v modulo 2^width. */
static void ctr_put(struct fsc_nicfx_dev *dev, enum fsc_nicfx_ctr c, uint64_t v)
{
    dev->ctr[c] = fsc_nicfx_ctrs[c].width == 32 ? v & 0xffffffffu : v;
}

/* Counter c of dev += delta, modulo 2^width (delta is taken modulo 2^64
 * first, which 2^32 divides: the same result for either width). */
static void bump(struct fsc_nicfx_dev *dev, enum fsc_nicfx_ctr c, u128 delta)
{
    ctr_put(dev, c, dev->ctr[c] + (uint64_t)delta);
}

static void bump_cnp(struct fsc_nicfx_dev *dev, u128 n)
{
    bump(dev, FSC_NICFX_NP_CNP_SENT, n);
    bump(dev, FSC_NICFX_RP_CNP_HANDLED, n);
    bump(dev, FSC_NICFX_NP_ECN_MARKED_ROCE_PACKETS, n);
}

/* Step 4: dev's traffic over ms at the given rates. */
static void advance(struct fsc_nicfx_dev *dev, const struct fsc_nicfx_rate *gbps,
                    const struct fsc_nicfx_rate *cnp, const struct fsc_nicfx_rate *oos, int64_t ms)
{
    static const enum fsc_nicfx_ctr by_packets[] = {
        FSC_NICFX_RX_PACKETS,        FSC_NICFX_TX_PACKETS,           FSC_NICFX_PORT_XMIT_PACKETS,
        FSC_NICFX_PORT_RCV_PACKETS,  FSC_NICFX_UNICAST_XMIT_PACKETS, FSC_NICFX_UNICAST_RCV_PACKETS,
        FSC_NICFX_RX_WRITE_REQUESTS,
    };
    u128 b = scaled(gbps, 125000, ms, 1); /* 1 Gb/s is 125000 bytes per ms */
    u128 p = b / 4096;
    bump(dev, FSC_NICFX_RX_BYTES, b);
    bump(dev, FSC_NICFX_TX_BYTES, b);
    bump(dev, FSC_NICFX_PORT_XMIT_DATA, b / 4);
    bump(dev, FSC_NICFX_PORT_RCV_DATA, b / 4);
    for (size_t i = 0; i < sizeof(by_packets) / sizeof(by_packets[0]); i++)
        bump(dev, by_packets[i], p);
    bump_cnp(dev, scaled(cnp, 1, ms, 1000));
    u128 o = scaled(oos, 1, ms, 1000);
    bump(dev, FSC_NICFX_OUT_OF_SEQUENCE, o);
    bump(dev, FSC_NICFX_PACKET_SEQ_ERR, o);
}

/* The devices (bits) that ops of `kind` name. */
static uint64_t mask_of(const struct fsc_nicfx_step *step, enum fsc_nicfx_op_kind kind)
{
    uint64_t m = 0;
    for (size_t i = 0; i < step->n_ops; i++)
        if (step->ops[i].kind == kind)
            m |= (uint64_t)1 << step->ops[i].dev;
    return m;
}

uint64_t fsc_nicfx_step(struct fsc_nicfx_dev *devs, size_t n, const struct fsc_nicfx_step *step)
{
    const struct fsc_nicfx_op *ops = step->ops;
    uint64_t reset = mask_of(step, FSC_NICFX_OP_RESET);
    for (size_t k = 0; k < n; k++)
        if (reset & ((uint64_t)1 << k))
            for (int c = 0; c < FSC_NICFX__CTRS; c++)
                devs[k].ctr[c] = 0;
    for (size_t i = 0; i < step->n_ops; i++)
        if (ops[i].kind == FSC_NICFX_OP_NEAR_WRAP) {
            devs[ops[i].dev].ctr[FSC_NICFX_OUT_OF_SEQUENCE] = NEAR_WRAP_VALUE;
            devs[ops[i].dev].ctr[FSC_NICFX_PACKET_SEQ_ERR] = NEAR_WRAP_VALUE;
        }
    for (size_t i = 0; i < step->n_ops; i++)
        if (ops[i].kind == FSC_NICFX_OP_SET)
            ctr_put(&devs[ops[i].dev], ops[i].ctr, ops[i].value);

    for (size_t k = 0; k < n; k++) {
        if (reset & ((uint64_t)1 << k))
            continue;
        struct fsc_nicfx_dev *dev = &devs[k];
        bool over = step->only < 0 || (size_t)step->only == k;
        advance(dev, over && step->gbps ? step->gbps : &dev->gbps,
                over && step->cnp_rate ? step->cnp_rate : &dev->cnp_rate,
                over && step->oos_rate ? step->oos_rate : &dev->oos_rate, step->dt_ms);
    }

    for (size_t i = 0; i < step->n_ops; i++) {
        struct fsc_nicfx_dev *dev = &devs[ops[i].dev];
        if (ops[i].kind == FSC_NICFX_OP_CNP_STORM)
            bump_cnp(dev, scaled(&ops[i].rate, 1, step->dt_ms, 1000));
        else if (ops[i].kind == FSC_NICFX_OP_ADD)
            bump(dev, ops[i].ctr, ops[i].value);
    }

    /* A step that names a device for both states ends in the second one. */
    uint64_t degrade = mask_of(step, FSC_NICFX_OP_DEGRADE_PCIE);
    uint64_t restore = mask_of(step, FSC_NICFX_OP_RESTORE_PCIE);
    uint64_t down = mask_of(step, FSC_NICFX_OP_LINK_DOWN);
    uint64_t up = mask_of(step, FSC_NICFX_OP_LINK_UP);
    for (size_t k = 0; k < n; k++) {
        uint64_t bit = (uint64_t)1 << k;
        if (degrade & bit)
            devs[k].pcie_degraded = true;
        if (restore & bit)
            devs[k].pcie_degraded = false;
        if (down & bit)
            devs[k].link_up = false;
        if (up & bit)
            devs[k].link_up = true;
    }
    for (size_t i = 0; i < step->n_ops; i++)
        if (ops[i].kind == FSC_NICFX_OP_AER) {
            struct fsc_nicfx_dev *dev = &devs[ops[i].dev];
            dev->aer[ops[i].aer][ops[i].aer_label] += ops[i].aer_n;
            dev->aer_total[ops[i].aer] += ops[i].aer_n;
        }
    return mask_of(step, FSC_NICFX_OP_FREEZE) & ~reset;
}
