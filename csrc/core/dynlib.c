/* mt_dynlib_*: dlopen/dlsym/dlclose, or on Windows LoadLibraryExW (so a
 * library's own dependencies are looked for beside it, as NumPy's OpenBLAS
 * DLL needs), GetProcAddress and FreeLibrary. The Windows branch is written
 * for MSVC and MinGW but is not compiled by this project's CI. */
#include "dynlib.h"

#ifdef _WIN32
#include <stdlib.h>
#include <windows.h>

void *mt_dynlib_open(const char *path)
{
    int n = MultiByteToWideChar(CP_UTF8, 0, path, -1, NULL, 0);
    if (n <= 0)
        return NULL;
    wchar_t *wide = malloc((size_t)n * sizeof(wchar_t));
    if (!wide)
        return NULL;
    HMODULE h = NULL;
    if (MultiByteToWideChar(CP_UTF8, 0, path, -1, wide, n) == n)
        h = LoadLibraryExW(wide, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
    free(wide);
    return (void *)h;
}

void *mt_dynlib_symbol(void *lib, const char *name)
{
    return (void *)GetProcAddress((HMODULE)lib, name);
}

void mt_dynlib_close(void *lib) { FreeLibrary((HMODULE)lib); }
#else
#include <dlfcn.h>

#include "portable.h"

void *mt_dynlib_open(const char *path) { return dlopen(path, RTLD_NOW | RTLD_LOCAL); }

void *mt_dynlib_symbol(void *lib, const char *name) { return dlsym(lib, name); }

void mt_dynlib_close(void *lib) { dlclose(lib); }
#endif
