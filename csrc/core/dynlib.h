/* Loading a shared library at run time and finding its symbols: dlopen on
 * POSIX systems, LoadLibrary on Windows, behind one interface so a caller
 * (the optional BLAS) names neither. */
#ifndef MT_CORE_DYNLIB_H
#define MT_CORE_DYNLIB_H

/* Opens the library at path (UTF-8), its own symbols kept out of the global
 * namespace; NULL when it cannot be loaded. */
void *mt_dynlib_open(const char *path);
/* The address of a symbol of an opened library, or NULL. */
void *mt_dynlib_symbol(void *lib, const char *name);
void mt_dynlib_close(void *lib);

#endif
