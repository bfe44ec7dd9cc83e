/*
 * crc.h: checksums of data at rest and in transit.
 *
 * crc32_ieee: CRC-32 (IEEE 802.3, as zlib's crc32), continuing from CRC
 * (0 to start): the queue log's records and checkpoint files.
 * crc32c: CRC-32C (Castagnoli, as iSCSI and ext4), continuing from CRC:
 * transferred files, where it must keep up with the disk and network;
 * the processor's own instruction where it has one.
 */
#ifndef CONDOR_CRC_H
#define CONDOR_CRC_H

#include <stddef.h>
#include <stdint.h>

uint32_t	crc32_ieee(uint32_t crc, const void *data, size_t n);
uint32_t	crc32c(uint32_t crc, const void *data, size_t n);
/* crc32c_portable: the same without the processor's instruction. */
uint32_t	crc32c_portable(uint32_t crc, const void *data, size_t n);

#endif
