#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The RDMA CM messages in a capture of a RoCE v2 link, which tcpdump does
# not decode: one line per REQ, MRA, REJ (with its reason), REP, RTU, DREQ,
# DREP, with the seconds since the first packet, the direction and the
# transaction id.  Use it to see whether a host's connection requests cross
# the wire and whether the target's CM answers them.
#
# usage: scripts/pcap-cm.py FILE.pcap
#   (classic little-endian pcap of an Ethernet link, IPv4, as QEMU's
#   filter-dump writes: build/vm/<kver>/pair/<test>.pcap)
import struct
import sys

ROCE_V2_PORT = 4791
MGMT_CLASS_CM = 0x07
CM_ATTRS = {
    0x10: 'REQ', 0x11: 'MRA', 0x12: 'REJ', 0x13: 'REP', 0x14: 'RTU',
    0x15: 'DREQ', 0x16: 'DREP', 0x17: 'SIDR_REQ', 0x18: 'SIDR_REP',
    0x19: 'LAP', 0x1a: 'APR',
}
BTH_LEN = 12
DETH_LEN = 8
MAD_HDR_LEN = 24


def cm_messages(data):
    """Yield (seconds, src, dst, name, tid, detail) for each CM MAD."""
    if struct.unpack('<I', data[:4])[0] not in (0xa1b2c3d4, 0xa1b23c4d):
        raise ValueError('not a little-endian classic pcap file')
    nano = struct.unpack('<I', data[:4])[0] == 0xa1b23c4d
    off, t0 = 24, None
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack('<IIII', data[off:off + 16])
        pkt = data[off + 16:off + 16 + incl]
        off += 16 + incl
        t = sec + frac / (1e9 if nano else 1e6)
        if t0 is None:
            t0 = t
        if len(pkt) < 34 or pkt[12:14] != b'\x08\x00':
            continue
        ihl = (pkt[14] & 0xf) * 4
        ip = pkt[14:14 + ihl]
        if ip[9] != 17:
            continue
        udp = 14 + ihl
        if struct.unpack('>H', pkt[udp + 2:udp + 4])[0] != ROCE_V2_PORT:
            continue
        bth = pkt[udp + 8:udp + 8 + BTH_LEN]
        if len(bth) < BTH_LEN or int.from_bytes(bth[5:8], 'big') != 1:
            continue
        mad = pkt[udp + 8 + BTH_LEN + DETH_LEN:]
        if len(mad) < MAD_HDR_LEN or mad[1] != MGMT_CLASS_CM:
            continue
        attr = struct.unpack('>H', mad[16:18])[0]
        detail = ''
        if attr == 0x12 and len(mad) >= MAD_HDR_LEN + 12:
            # REJ: local and remote comm ids, message rejected, reason
            reason = struct.unpack('>H', mad[MAD_HDR_LEN + 10:MAD_HDR_LEN + 12])[0]
            detail = ' reason %d' % reason
        yield (t - t0, '.'.join(map(str, ip[12:16])),
               '.'.join(map(str, ip[16:20])), CM_ATTRS.get(attr, hex(attr)),
               mad[8:16].hex(), detail)


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: pcap-cm.py FILE.pcap')
    with open(sys.argv[1], 'rb') as f:
        data = f.read()
    try:
        for t, src, dst, name, tid, detail in cm_messages(data):
            print('%9.3f %s -> %s %-4s tid %s%s' % (t, src, dst, name, tid, detail))
    except ValueError as e:
        sys.exit('pcap-cm.py: %s: %s' % (sys.argv[1], e))


if __name__ == '__main__':
    main()
