// A shared library opened with dlopen the first time it is needed rather than linked, and the functions of it a program
// calls, defined under the library's own names: each call goes to the function found in the library. For libraries
// that bring dozens of others, which the dynamic loader would otherwise map and relocate at every start of the
// process, for runs that mostly never call them (CFFmpeg, CCurl).
//
// A C file lists the functions once, as an X-macro of FUNCTION(result, name, parameters, arguments),
// PROCEDURE(name, parameters, arguments) for one that returns nothing, and FOUND(name) for one only looked up (a
// variadic function, which the file's own shims call through LIBRARY_CALL), then says LIBRARY_FUNCTIONS(soname, LIST):
// one library per C file. The compiler holds every definition to the library's own declaration of it.
#ifndef VOICEMEMO_LIBRARY_LOADER_H
#define VOICEMEMO_LIBRARY_LOADER_H

#include <pthread.h>
#include <stddef.h>

/// A library to open on first use, and the addresses of its functions.
typedef struct {
    const char *soname;
    const char *const *names;
    void **functions;
    size_t count;
    pthread_mutex_t lock;
    /// Set (with release order) once loading was tried: `failure` is final then.
    int tried;
    /// NULL once loaded, else why not.
    const char *failure;
    char failureText[512];
} library_loader;

/// Opens the library and finds its functions, once, whichever thread asks first. Returns NULL when they are there,
/// else the dynamic loader's sentence for what is missing.
const char *library_load(library_loader *library);

/// The address of function `index`, loading the library first if need be. A call into a library that could not be
/// loaded is a bug of the caller (it did not check library_load first): the process ends with a line that says so.
void *library_function(library_loader *library, size_t index);

#define LIBRARY_INDEX(name) library_index_##name,
#define LIBRARY_FUNCTION_INDEX(result, name, parameters, arguments) LIBRARY_INDEX(name)
#define LIBRARY_PROCEDURE_INDEX(name, parameters, arguments) LIBRARY_INDEX(name)
#define LIBRARY_NAME(name) #name,
#define LIBRARY_FUNCTION_NAME(result, name, parameters, arguments) LIBRARY_NAME(name)
#define LIBRARY_PROCEDURE_NAME(name, parameters, arguments) LIBRARY_NAME(name)
#define LIBRARY_NOTHING(name)

/// The function `name` of this file's library, as a pointer of its declared type.
#define LIBRARY_CALL(name) ((__typeof__(&name))library_function(&this_library, library_index_##name))

// Hidden: the definitions serve this program alone, never the library's own dependencies, which find each other.
#define LIBRARY_FUNCTION_DEFINITION(result, name, parameters, arguments) \
    __attribute__((visibility("hidden"))) result name parameters { return LIBRARY_CALL(name) arguments; }
#define LIBRARY_PROCEDURE_DEFINITION(name, parameters, arguments) \
    __attribute__((visibility("hidden"))) void name parameters { LIBRARY_CALL(name) arguments; }

/// Defines `this_library` (the library_loader of `soname`) and every FUNCTION and PROCEDURE of `LIST`.
#define LIBRARY_FUNCTIONS(soname, LIST) \
    enum { LIST(LIBRARY_FUNCTION_INDEX, LIBRARY_PROCEDURE_INDEX, LIBRARY_INDEX) library_count }; \
    static const char *const library_names[] = { LIST(LIBRARY_FUNCTION_NAME, LIBRARY_PROCEDURE_NAME, LIBRARY_NAME) }; \
    static void *library_functions[library_count]; \
    static library_loader this_library = { \
        soname, library_names, library_functions, library_count, PTHREAD_MUTEX_INITIALIZER, 0, NULL, {0} }; \
    LIST(LIBRARY_FUNCTION_DEFINITION, LIBRARY_PROCEDURE_DEFINITION, LIBRARY_NOTHING)

#endif
