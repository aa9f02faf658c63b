/* The docstrings of the functions published from the op table. */
#ifndef MT_PYTHON_DOCSTRING_H
#define MT_PYTHON_DOCSTRING_H

#include "function.h"

/* torch's layout: each overload's signature (without self for a method),
 * a blank line, the description kept beside the rows (MT_DOC in the op
 * table), then Args and Keyword args sections worded from the parameter
 * glossary (param_glossary.def). A custom op has no description: its doc
 * is its signature. A new reference, NULL with an exception set. */
PyObject *mt_function_doc(const MTFunctionObject *f);

#endif
