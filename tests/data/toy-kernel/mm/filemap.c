int filemap;
