"""TreeSpecs to JSON text and back, in torch's protocol 1: a spec is
``{"type": serialized type name, "context": JSON text of its context (or
what the type's to_dumpable_context made), "children_spec": [...]}``, a leaf
has type and context null, and the text is the JSON of ``[protocol, spec]``.
The same text loads in torch for the built-in container types."""
import dataclasses
import enum
import functools
import importlib
import json
from typing import Any, List, Optional

from . import _pytree as _tree

__all__ = ["treespec_dumps", "treespec_loads"]

DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL = 1
_PROTOCOLS = [1]


class _EnumEncoder(json.JSONEncoder):
    """Writes an Enum member (a dict key, say) as its class and name."""

    def default(self, obj):
        if isinstance(obj, enum.Enum):
            return {"__enum__": True,
                    "fqn": f"{obj.__class__.__module__}:{obj.__class__.__qualname__}",
                    "name": obj.name}
        return super().default(obj)


def _enum_object_hook(obj):
    if "__enum__" not in obj:
        return obj
    module, _, qualname = obj["fqn"].partition(":")
    cls: Any = importlib.import_module(module)
    for part in qualname.split("."):
        cls = getattr(cls, part)
    return cls[obj["name"]]


@dataclasses.dataclass
class _TreeSpecSchema:
    type: Optional[str]
    context: Any
    children_spec: List["_TreeSpecSchema"]


def _to_schema(spec) -> _TreeSpecSchema:
    if spec.is_leaf():
        return _TreeSpecSchema(None, None, [])
    entry = _tree.SUPPORTED_SERIALIZED_TYPES.get(spec.type)
    if entry is None:
        raise NotImplementedError(f"Serializing {spec.type} in pytree is not registered.")
    if entry.serialized_type_name == _tree.NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"No registered serialization name for {spec.type} found. Please update your "
            "_register_pytree_node call with a `serialized_type_name` kwarg.")
    if entry.to_dumpable_context is None:
        try:
            context = json.dumps(spec.context, cls=_EnumEncoder)
        except TypeError as e:
            raise TypeError("Unable to serialize context. Please make the context json "
                            "dump-able, or register a custom serializer using "
                            "_register_pytree_node.") from e
    else:
        context = entry.to_dumpable_context(spec.context)
    return _TreeSpecSchema(entry.serialized_type_name, context,
                           [_to_schema(c) for c in spec.children()])


def _from_schema(schema):
    if schema["type"] is None and schema["context"] is None and not schema["children_spec"]:
        return _tree.treespec_leaf()
    cls = _tree.SERIALIZED_TYPE_TO_PYTHON_TYPE.get(schema["type"])
    if cls is None:
        raise NotImplementedError(f"Deserializing {schema['type']} in pytree is not registered.")
    entry = _tree.SUPPORTED_SERIALIZED_TYPES[cls]
    if entry.from_dumpable_context is None:
        try:
            context = json.loads(schema["context"], object_hook=_enum_object_hook)
        except TypeError as e:
            raise TypeError("Unable to deserialize context. Please make the context json "
                            "load-able, or register a custom serializer using "
                            "_register_pytree_node.") from e
    else:
        context = entry.from_dumpable_context(schema["context"])
    return _tree.TreeSpec(cls, context, [_from_schema(c) for c in schema["children_spec"]])


def _unknown(protocol):
    return ValueError(f"Unknown protocol {protocol}. Available protocols: {_PROTOCOLS}")


def treespec_dumps(treespec, protocol: Optional[int] = None) -> str:
    """The spec as JSON text (types by their serialized names), which
    :func:`treespec_loads` reads back."""
    if not isinstance(treespec, _tree.TreeSpec):
        raise TypeError("Expected `treespec` to be an instance of PyTreeSpec but got item of "
                        f"type {type(treespec)}.")
    if protocol is None:
        protocol = DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL
    if protocol not in _PROTOCOLS:
        raise _unknown(protocol)
    schema = dataclasses.asdict(_to_schema(treespec))
    return json.dumps((protocol, schema), cls=_EnumEncoder)


@functools.lru_cache
def treespec_loads(serialized: str):
    """The TreeSpec that :func:`treespec_dumps` wrote as ``serialized``."""
    protocol, schema = json.loads(serialized)
    if protocol not in _PROTOCOLS:
        raise _unknown(protocol)
    return _from_schema(schema)
