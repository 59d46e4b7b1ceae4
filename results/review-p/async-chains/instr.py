import sys, re
src = sys.argv[1]
f = src + "/mm/filemap.c"
s = open(f).read()
def rep(old, new, cnt=1):
    global s
    assert s.count(old) == cnt, (old, s.count(old))
    s = s.replace(old, new)
hdr = """
atomic_long_t mmlab_dbg[16];
static void mmlab_dump(void)
{
	int i;
	char buf[256];
	int n = 0;

	for (i = 0; i < 10; i++)
		n += scnprintf(buf + n, sizeof(buf) - n, " %ld", atomic_long_read(&mmlab_dbg[i]));
	pr_info("@@DBG%s\\n", buf);
}
#define DBG(i) atomic_long_inc(&mmlab_dbg[i])
"""
rep("static struct file *do_sync_mmap_readahead(struct vm_fault *vmf)\n{", hdr + "static struct file *do_sync_mmap_readahead(struct vm_fault *vmf)\n{")
rep("""			WRITE_ONCE(ra->mmap_miss, ++mmap_miss);
""", """			WRITE_ONCE(ra->mmap_miss, ++mmap_miss);
		DBG(0);
		if (!(atomic_long_read(&mmlab_dbg[0]) & 1023))
			mmlab_dump();
""")
if "mmap_miss_run(vmf, ra)" in s:
    rep("""			if (!mmap_miss_run(vmf, ra))
				return fpin;
""", """			DBG(1);
			if (!mmap_miss_run(vmf, ra))
				return fpin;
			DBG(2);
""")
else:
    rep("""		if (mmap_miss > MMAP_LOTSAMISS)
			return fpin;
""", """		if (mmap_miss > MMAP_LOTSAMISS) {
			DBG(1);
			return fpin;
		}
""")
rep("""		 * mmap read-around
		 */
""", """		 * mmap read-around
		 */
		DBG(9);
""")
rep("""		if (mmap_miss)
			WRITE_ONCE(ra->mmap_miss, --mmap_miss);
""", """		if (mmap_miss) {
			DBG(4);
			if (mmap_miss == MMAP_LOTSAMISS + 1)
				DBG(8);
			WRITE_ONCE(ra->mmap_miss, --mmap_miss);
		}
""")
rep("""			if (mmap_miss)
				WRITE_ONCE(file->f_ra.mmap_miss,
					   mmap_miss - 1);
""", """			if (mmap_miss) {
				DBG(3);
				if (mmap_miss == MMAP_LOTSAMISS + 1)
					DBG(8);
				WRITE_ONCE(file->f_ra.mmap_miss,
					   mmap_miss - 1);
			}
""")
open(f, "w").write(s)
f = src + "/mm/readahead.c"
s = open(f).read()
rep("void page_cache_async_ra(struct readahead_control *ractl,", "extern atomic_long_t mmlab_dbg[16];\nvoid page_cache_async_ra(struct readahead_control *ractl,")
rep("""		ra->size = max(ra->size, get_next_ra_size(ra, max_pages));
		goto readit;""", """		ra->size = max(ra->size, get_next_ra_size(ra, max_pages));
		atomic_long_inc(&mmlab_dbg[5]);
		goto readit;""")
rep("""	if (!start || start - index > max_pages)
		return;

	ra->start = start;""", """	if (!start || start - index > max_pages) {
		atomic_long_inc(&mmlab_dbg[7]);
		return;
	}
	atomic_long_inc(&mmlab_dbg[6]);

	ra->start = start;""")
open(f, "w").write(s)
