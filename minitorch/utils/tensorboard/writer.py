"""SummaryWriter and FileWriter: events for TensorBoard, written through the
`tensorboard` package's EventFileWriter, with torch's arguments, defaults
and directory layout (add_scalars writes one subdirectory per series)."""
import os
import time
from typing import Any, Dict, Optional

from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import _summary

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """Writes Event protocol buffers to an event file in log_dir, asynchronously."""

    def __init__(self, log_dir: Any, max_queue: int = 10, flush_secs: int = 120,
                 filename_suffix: str = "") -> None:
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self) -> str:
        """The directory the event file is in."""
        return self.event_writer.get_logdir()

    def add_event(self, event: Event, step: Any = None, walltime: Optional[float] = None) -> None:
        """Write an event, stamped with walltime (now by default) and step."""
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary: Any, global_step: Any = None,
                    walltime: Optional[float] = None) -> None:
        """Write a Summary wrapped in an Event."""
        self.add_event(Event(summary=summary), global_step, walltime)

    def flush(self) -> None:
        """Write pending events to disk."""
        self.event_writer.flush()

    def close(self) -> None:
        """Flush and close the event file."""
        self.event_writer.close()

    def reopen(self) -> None:
        """Reopen the writer after close, in the same directory."""
        self.event_writer.reopen()


class SummaryWriter:
    """Logs scalars, histograms, images and text for TensorBoard to an event
    file in log_dir (runs/<date>_<host><comment> by default)."""

    def __init__(self, log_dir: Optional[str] = None, comment: str = "",
                 purge_step: Optional[int] = None, max_queue: int = 10, flush_secs: int = 120,
                 filename_suffix: str = "") -> None:
        if not log_dir:
            import socket
            from datetime import datetime
            log_dir = os.path.join("runs", datetime.now().strftime("%b%d_%H-%M-%S") + "_"
                                   + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer: Optional[FileWriter] = None
        self.all_writers: Optional[Dict[str, FileWriter]] = None
        self._get_file_writer()
        self.default_bins = _summary.default_bins()

    def _get_file_writer(self) -> FileWriter:
        """The main FileWriter, made again after close."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs,
                                          self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                # TensorBoard drops the events after purge_step that an earlier run wrote
                self.file_writer.add_event(Event(step=self.purge_step,
                                                 file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=self.purge_step,
                                                 session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        """The directory event files are written to."""
        return self.log_dir

    def add_scalar(self, tag: str, scalar_value: Any, global_step: Any = None,
                   walltime: Optional[float] = None, new_style: bool = False,
                   double_precision: bool = False) -> None:
        """Log one number (a Python number or a one-element tensor) under tag."""
        summary = _summary.scalar(tag, scalar_value, new_style=new_style,
                                  double_precision=double_precision)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalars(self, main_tag: str, tag_scalar_dict: Dict[str, Any], global_step: Any = None,
                    walltime: Optional[float] = None) -> None:
        """Log several numbers in one chart: each series goes to its own
        subdirectory <log_dir>/<main_tag>_<tag>, under the tag main_tag."""
        walltime = time.time() if walltime is None else walltime
        root = self._get_file_writer().get_logdir()
        assert self.all_writers is not None
        for tag, value in tag_scalar_dict.items():
            fw_tag = root + "/" + main_tag.replace("/", "_") + "_" + tag
            if fw_tag not in self.all_writers:
                self.all_writers[fw_tag] = FileWriter(fw_tag, self.max_queue, self.flush_secs,
                                                      self.filename_suffix)
            self.all_writers[fw_tag].add_summary(_summary.scalar(main_tag, value), global_step,
                                                 walltime)

    def add_histogram(self, tag: str, values: Any, global_step: Any = None,
                      bins: Any = "tensorflow", walltime: Optional[float] = None,
                      max_bins: Optional[int] = None) -> None:
        """Log a histogram of values; bins as numpy.histogram takes them, or
        'tensorflow' for TensorFlow's exponential buckets."""
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        summary = _summary.histogram(tag, values, bins, max_bins=max_bins)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_image(self, tag: str, img_tensor: Any, global_step: Any = None,
                  walltime: Optional[float] = None, dataformats: str = "CHW") -> None:
        """Log an image (CHW by default; HWC or HW with dataformats); float
        pixels in [0, 1], uint8 pixels in [0, 255]."""
        self._get_file_writer().add_summary(_summary.image(tag, img_tensor, dataformats),
                                            global_step, walltime)

    def add_text(self, tag: str, text_string: str, global_step: Any = None,
                 walltime: Optional[float] = None) -> None:
        """Log a string (rendered as markdown by TensorBoard)."""
        self._get_file_writer().add_summary(_summary.text(tag, text_string), global_step, walltime)

    def flush(self) -> None:
        """Write every pending event to disk."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self) -> None:
        """Flush and close every event file (a second close does nothing)."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self) -> "SummaryWriter":
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        self.close()
