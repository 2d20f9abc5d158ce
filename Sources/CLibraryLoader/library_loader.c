#include "library_loader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

const char *library_load(library_loader *library) {
    if (__atomic_load_n(&library->tried, __ATOMIC_ACQUIRE)) return library->failure;
    pthread_mutex_lock(&library->lock);
    if (!library->tried) {
        // Local: its symbols stay out of the program's scope, where they could stand in for another library's.
        void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            snprintf(library->failureText, sizeof library->failureText, "%s", dlerror());
            library->failure = library->failureText;
        }
        for (size_t index = 0; handle && index < library->count; index++) {
            // dlsym searches the library's dependencies too (libavformat's libavcodec and libavutil).
            library->functions[index] = dlsym(handle, library->names[index]);
            if (!library->functions[index]) {
                snprintf(library->failureText, sizeof library->failureText, "%s has no function %s", library->soname,
                         library->names[index]);
                library->failure = library->failureText;
                break;
            }
        }
        __atomic_store_n(&library->tried, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&library->lock);
    return library->failure;
}

void *library_function(library_loader *library, size_t index) {
    if (library_load(library)) {
        fprintf(stderr, "%s called while %s could not be loaded: %s\n", library->names[index], library->soname,
                library->failure);
        abort();
    }
    return library->functions[index];
}
