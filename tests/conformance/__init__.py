"""Conformance against PyTorch's own test databases (issue #32): the OpInfos
of op_db, the ModuleInfos of module_db and the OptimizerInfos of optim_db,
used as data. Each entry with a minitorch counterpart runs its samples on
both libraries and compares; what is known to differ is listed, one reason
per entry, in expected_failures/*.txt, and the lists may only shrink."""
