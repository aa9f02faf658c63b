/* Builds the docstring of a function published from the op table from its
 * rows: the signatures, the one-line description beside the rows (MT_DOC)
 * and the parameter glossary. An operator's forms (add_, __add__, ...)
 * and a MT_PYOP row standing beside a plain-C row describe themselves
 * through the row they come from. */
#include "docstring.h"

#include <string.h>

static const char *const descriptions[MT_OP_COUNT] = {
#define MT_DOC(id, text) [MT_OP_##id] = text,
#include "../../ops.def"
#undef MT_DOC
};

static const struct {
    const char *name;
    const char *text;
} glossary[] = {
#define MT_GLOSS(name, text) {#name, text},
#include "param_glossary.def"
#undef MT_GLOSS
};

static const char *gloss(const char *name)
{
    for (size_t k = 0; k < sizeof glossary / sizeof glossary[0]; k++)
        if (strcmp(glossary[k].name, name) == 0)
            return glossary[k].text;
    return NULL;
}

/* Appends a formatted piece to *doc; on failure *doc becomes NULL. */
#define APPEND(doc, ...) \
    PyUnicode_AppendAndDel((doc), *(doc) ? PyUnicode_FromFormat(__VA_ARGS__) : NULL)

/* The description of a row, NULL when it has none (a custom op). */
static PyObject *row_description(const mt_op *op)
{
    if ((int)op->id >= MT_OP_COUNT)
        return NULL;
    if (descriptions[op->id])
        return PyUnicode_FromString(descriptions[op->id]);
    if (op->base == op->id)
        return NULL;
    const char *base = mt_ops[op->base].sig->name;
    switch (op->form) {
    case MT_FORM_INPLACE:
        return PyUnicode_FromFormat("In-place version of %s().", base);
    case MT_FORM_DUNDER:
        return PyUnicode_FromFormat("Implements the operator %s as %s(self, other).", op->form_name,
                                    base);
    case MT_FORM_IDUNDER:
        return PyUnicode_FromFormat(
            "Implements the augmented assignment %s as %s_(self, other), in place.", op->form_name,
            base);
    case MT_FORM_RDUNDER:
        return PyUnicode_FromFormat("Implements the reflected operator %s as %s(other, self).",
                                    op->form_name, base);
    default:
        return row_description(&mt_ops[op->base]);
    }
}

/* How a docstring names a parameter's type: as messages do, and also saying
 * where a number or a single int is taken. */
static const char *type_name(const mt_param *p)
{
    if (p->type == MT_ARG_TENSOR && p->numbers)
        return "Tensor or Number";
    if (p->type == MT_ARG_INT_LIST && p->list_len)
        return "int or tuple of ints";
    return mtpy_param_type_name(p);
}

/* Appends p's default as Python spells it after prefix (the signature
 * keeps a str default unquoted), then suffix. */
static void append_default(PyObject **doc, const mt_param *p, const char *prefix,
                           const char *suffix)
{
    const char *quote = p->type == MT_ARG_STR && !p->default_none ? "'" : "";
    APPEND(doc, "%s%s%s%s%s", prefix, quote, p->default_text, quote, suffix);
}

/* One overload's line: name(params) in Python's spelling, without self. */
/* A row's signature line, the function called by its public name (a
 * torch.special row's special_<name> is shown as <name>). */
static void append_signature(PyObject **doc, const mt_signature *s, int first, const char *name)
{
    APPEND(doc, "%s(", name);
    bool star = false;
    for (int i = first; *doc && i < s->nparams; i++) {
        const mt_param *p = &s->params[i];
        const char *sep = i > first ? ", " : "";
        if (p->kwonly && !star) {
            APPEND(doc, "%s*", sep);
            sep = ", ";
            star = true;
        }
        APPEND(doc, "%s%s", sep, p->name);
        if (p->has_default)
            append_default(doc, p, "=", "");
    }
    APPEND(doc, ")");
    if (*doc && s->returns)
        APPEND(doc, " -> %s", s->returns);
}

/* Whether an earlier overload (or an earlier parameter) already listed name. */
static bool listed_before(const MTFunctionObject *f, int k, int i, int first)
{
    for (int q = 0; q <= k; q++) {
        const mt_signature *s = f->sigs[q];
        for (int j = first; j < (q == k ? i : s->nparams); j++)
            if (strcmp(s->params[j].name, f->sigs[k]->params[i].name) == 0)
                return true;
    }
    return false;
}

/* The Args (kwonly false) or Keyword args section: each parameter once,
 * in the order the overloads first name it. */
static void append_params(PyObject **doc, const MTFunctionObject *f, bool kwonly)
{
    int first = f->is_method ? 1 : 0;
    bool header = false;
    for (int k = 0; *doc && k < f->nsigs; k++) {
        const mt_signature *s = f->sigs[k];
        for (int i = first; *doc && i < s->nparams; i++) {
            const mt_param *p = &s->params[i];
            if (p->kwonly != kwonly || listed_before(f, k, i, first))
                continue;
            if (!header) {
                APPEND(doc, "\n\n%s:", kwonly ? "Keyword args" : "Args");
                header = true;
            }
            const char *text = gloss(p->name);
            APPEND(doc, "\n    %s (%s%s): %s.", p->name, type_name(p),
                   p->optional ? ", optional" : "", text ? text : "see the description");
            if (p->has_default && !p->default_none)
                append_default(doc, p, " Default: ``", "``.");
        }
    }
}

/* The overloads' signature lines, each once: overloads that differ only in
 * their types read alike without them. */
static PyObject *signature_lines(const MTFunctionObject *f, bool described)
{
    const char *public_name = PyUnicode_AsUTF8(f->public_name);
    if (!public_name)
        return NULL;
    const char *shown = strrchr(public_name, '.') ? strrchr(public_name, '.') + 1 : public_name;
    PyObject *lines = PyList_New(0);
    for (int k = 0; lines && k < f->nsigs; k++) {
        if (f->rows[k]->tags & MT_TAG_DEPRECATED)
            continue;
        PyObject *line = PyUnicode_FromString(described ? "" : f->sigs[k]->text);
        if (described)
            append_signature(&line, f->sigs[k], f->is_method ? 1 : 0, shown);
        int seen = line ? PySequence_Contains(lines, line) : -1;
        if (seen < 0 || (!seen && PyList_Append(lines, line) < 0))
            Py_CLEAR(lines);
        Py_XDECREF(line);
    }
    return lines;
}

PyObject *mt_function_doc(const MTFunctionObject *f)
{
    PyObject *description = NULL;
    for (int k = 0; !description && k < f->nsigs; k++)
        if (!(description = row_description(f->rows[k])) && PyErr_Occurred())
            return NULL;
    PyObject *lines = signature_lines(f, description != NULL);
    PyObject *sep = PyUnicode_FromString("\n");
    PyObject *doc = lines && sep ? PyUnicode_Join(sep, lines) : NULL;
    Py_XDECREF(lines);
    Py_XDECREF(sep);
    if (description) {
        APPEND(&doc, "\n\n%U", description);
        append_params(&doc, f, false);
        append_params(&doc, f, true);
        Py_DECREF(description);
    }
    return doc;
}
