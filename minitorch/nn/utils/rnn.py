"""Variable-length sequences for recurrent layers, as torch.nn.utils.rnn:
padding a list of sequences into one tensor, and packing a padded batch into a
PackedSequence - the time steps laid end to end, each holding only the
sequences still running - and back.

Everything is composed of differentiable slicing, cat and stack, so gradients
flow through packing and unpacking. A PackedSequence keeps its batch sorted by
decreasing length; ``sorted_indices`` maps to the caller's order and
``unsorted_indices`` back.
"""
from typing import Iterable, List, NamedTuple, Optional, Tuple, Union

import minitorch
from minitorch import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]


class _PackedFields(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Optional[Tensor]
    unsorted_indices: Optional[Tensor]


class PackedSequence(_PackedFields):
    """A batch of variable-length sequences packed step by step: ``data`` holds
    step 0 of every sequence, then step 1 of those still running, and so on;
    ``batch_sizes[t]`` counts the sequences at step ``t``.
    """

    def __new__(cls, data: Tensor, batch_sizes: Optional[Tensor] = None,
                sorted_indices: Optional[Tensor] = None,
                unsorted_indices: Optional[Tensor] = None) -> "PackedSequence":
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # the (data, batch_sizes) pair torch also accepts
            data, batch_sizes = data
        elif batch_sizes.dim() != 1:
            raise ValueError("batch_sizes should always be on CPU. Instances of "
                             "PackedSequence should never be created manually. They should "
                             "be instantiated by functions like pack_sequence and "
                             "pack_padded_sequences in nn.utils.rnn. "
                             "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn."
                             "pack_sequence")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> "PackedSequence":
        """Converts ``data`` as Tensor.to does; the indices stay as they are."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self) -> "PackedSequence":
        """Returns self: minitorch tensors live on the CPU."""
        return self

    def double(self) -> "PackedSequence":
        """``data`` as float64."""
        return self.to(dtype=minitorch.float64)

    def float(self) -> "PackedSequence":
        """``data`` as float32."""
        return self.to(dtype=minitorch.float32)

    @property
    def is_cuda(self) -> bool:
        """False: minitorch tensors live on the CPU."""
        return False

    def is_pinned(self) -> bool:
        """False: minitorch has no pinned memory."""
        return False


def invert_permutation(permutation: Optional[Tensor]) -> Optional[Tensor]:
    """The permutation that undoes ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    return minitorch.empty_like(permutation).scatter_(
        0, permutation, minitorch.arange(permutation.numel()))


def split_steps(data: Tensor, sizes: List[int]) -> List[Tensor]:
    """data's rows cut into consecutive views of the given sizes (split takes at
    most 32 sections, a sequence can have more steps).
    """
    if sizes and sizes.count(sizes[0]) == len(sizes):  # a padded batch: one unbind
        return list(data.view(len(sizes), sizes[0], *data.shape[1:]).unbind(0))
    steps, start = [], 0
    for n in sizes:
        steps.append(data[start:start + n])
        start += n
    return steps


def _batch_sizes(lengths: List[int]) -> Tensor:
    """batch_sizes[t] = how many of the (decreasing) lengths exceed t."""
    return minitorch.tensor([sum(1 for n in lengths if n > t) for t in range(lengths[0])],
                            dtype=minitorch.int64)


def pack_padded_sequence(input: Tensor, lengths: Union[Tensor, List[int]],
                         batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Packs a padded batch ``(T, B, *)`` (``(B, T, *)`` if ``batch_first``) of
    sequences with the given lengths.
    """
    if isinstance(lengths, Tensor):
        lengths = lengths.to(dtype=minitorch.int64)
    else:
        lengths = minitorch.as_tensor(lengths, dtype=minitorch.int64)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = minitorch.sort(lengths, descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if batch_first:
        input = input.transpose(0, 1)
    steps = lengths.tolist()
    if lengths.dim() != 1 or len(steps) != input.size(1):
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(steps)} (batch_size={input.size(1)})")
    if steps and steps[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if any(a < b for a, b in zip(steps, steps[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                           "pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    batch_sizes = _batch_sizes(steps)
    data = minitorch.cat([input[t, :n] for t, n in enumerate(batch_sizes.tolist())])
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0,
                        total_length: Optional[int] = None) -> Tuple[Tensor, Tensor]:
    """Unpacks a PackedSequence into a padded batch; returns it with the lengths."""
    sizes = sequence.batch_sizes.tolist()
    length = len(sizes)
    if total_length is not None:
        if total_length < length:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {length}")
        length = total_length
    data, batch = sequence.data, sizes[0]
    trailing = tuple(data.shape[1:])
    steps = []
    for chunk in split_steps(data, sizes):
        if chunk.size(0) < batch:
            pad = data.new_full((batch - chunk.size(0),) + trailing, padding_value)
            chunk = minitorch.cat([chunk, pad])
        steps.append(chunk)
    steps += [data.new_full((batch,) + trailing, padding_value)] * (length - len(sizes))
    padded = minitorch.stack(steps)
    lengths = minitorch.tensor([sum(1 for n in sizes if n > b) for b in range(batch)],
                               dtype=minitorch.int64)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices]
    return padded, lengths


def pad_sequence(sequences: Union[Tensor, Iterable[Tensor]], batch_first: bool = False,
                 padding_value: float = 0.0, padding_side: str = "right") -> Tensor:
    """Stacks sequences of different lengths into ``(T, B, *)`` (``(B, T, *)`` if
    ``batch_first``), filling the short ones with ``padding_value`` on
    ``padding_side``.
    """
    try:
        sequences = tuple(sequences)
    except TypeError:
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}") from None
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    first = sequences[0]
    trailing = tuple(first.shape[1:])
    longest = max(s.size(0) for s in sequences)
    rows = []
    for s in sequences:
        s = minitorch.broadcast_to(s.to(first.dtype), (s.size(0),) + trailing)
        pad = first.new_full((longest - s.size(0),) + trailing, padding_value)
        rows.append(minitorch.cat([s, pad] if padding_side == "right" else [pad, s]))
    return minitorch.stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor,
                   batch_first: bool = False) -> List[Tensor]:
    """Splits a padded batch back into its sequences of the given lengths."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(n)] for seq, n in zip(padded_sequences, lengths)]


def pack_sequence(sequences: List[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Packs a list of sequences of different lengths."""
    lengths = minitorch.as_tensor([s.size(0) for s in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> List[Tensor]:
    """Unpacks a PackedSequence into its list of sequences."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
