/* Included ahead of each RVfplib routine's source (ireerv_softfloat): the
 * routine's code starts RVFPLIB_PAD bytes (0 or 2) past a 4-byte boundary,
 * wherever the link places it, so its cost no longer depends on where
 * unrelated code puts it.  RVFPLIB_PADS in site_scons/ireerv/softfloat/
 * choices.py says why and which. */
	.text
	.balign 4
#if RVFPLIB_PAD == 2
	.2byte 0x0001 /* c.nop, never executed */
#endif
