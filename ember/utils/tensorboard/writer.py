"""``SummaryWriter``: log scalars, histograms, images, text, embeddings, graphs and more to
TensorBoard event files (``ember.utils.tensorboard.writer``).

The events are written by TensorBoard's own ``EventFileWriter`` (a queue drained by a
background thread), so the files are exactly those TensorBoard reads.
"""
import os
import time

from tensorboard.compat import tf
from tensorboard.compat.proto import event_pb2
from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from ._convert import figure_to_image, make_np
from ._embedding import (get_embedding_info, mat_bytes, sprite_bytes, tsv_bytes,
                         write_file, write_pbtxt)
from .summary import (audio, custom_scalars, histogram, histogram_raw, hparams, image,
                      image_boxes, mesh, pr_curve, pr_curve_raw, scalar, tensor_proto, text,
                      video)

__all__ = ['FileWriter', 'SummaryWriter']


class FileWriter:
    """Writes ``Event`` and ``Summary`` protocol buffers to one event file in ``log_dir``.

    The file is created at construction; events are queued and written by a background
    thread, so adding one does not wait for the disk.

    Args:
        log_dir (str or os.PathLike): the directory of the event file (created if needed).
        max_queue (int): how many events may wait before an ``add`` call forces a write.
            Default: 10.
        flush_secs (float): how often, in seconds, pending events are written. Default: 120.
        filename_suffix (str): appended to the event file's name. Default: ``''``.

    Example::

        >>> fw = FileWriter('runs/exp')
        >>> fw.add_summary(summary.scalar('loss', 0.5), global_step=1)
        >>> fw.close()
    """

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=''):
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs,
                                            filename_suffix)

    def get_logdir(self):
        """The directory the event file is in."""
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        """Queue an ``Event``, stamped with ``walltime`` (default: now) and, when given, the
        integer ``step``."""
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        """Queue a ``Summary`` as an event at ``global_step``."""
        self.add_event(event_pb2.Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_profile, walltime=None):
        """Queue a ``(GraphDef, RunMetadata)`` pair: the graph and its run metadata
        (tagged ``step1``)."""
        graph, stepstats = graph_profile
        self.add_event(event_pb2.Event(graph_def=graph.SerializeToString()), None, walltime)
        trm = event_pb2.TaggedRunMetadata(tag='step1',
                                          run_metadata=stepstats.SerializeToString())
        self.add_event(event_pb2.Event(tagged_run_metadata=trm), None, walltime)

    def add_onnx_graph(self, graph, walltime=None):
        """Queue a ``GraphDef``."""
        self.add_event(event_pb2.Event(graph_def=graph.SerializeToString()), None, walltime)

    def flush(self):
        """Write every pending event to disk."""
        self.event_writer.flush()

    def close(self):
        """Write the pending events and close the file."""
        self.event_writer.close()

    def reopen(self):
        """Open a closed writer again, where the installed tensorboard's ``EventFileWriter``
        can (tensorboard 2.x cannot: ``AttributeError``, as with torch)."""
        self.event_writer.reopen()


def _default_bins():
    # TensorBoard's default buckets: +-1e-12 growing by 10% up to 1e20, and 0
    v, pos = 1e-12, []
    while v < 1e20:
        pos.append(v)
        v *= 1.1
    return [-x for x in reversed(pos)] + [0] + pos


_DEFAULT_BINS = None


class SummaryWriter:
    """Writes summaries for TensorBoard to event files in ``log_dir``.

    Logging calls return at once: a background thread writes the events. Call
    :meth:`flush` to push pending events to disk, and :meth:`close` (or use the writer as a
    context manager) when done.

    Args:
        log_dir (str or os.PathLike, optional): where to write. Default:
            ``runs/<month><day>_<hour>-<minute>-<second>_<hostname><comment>``.
        comment (str): appended to the default ``log_dir``; ignored when ``log_dir`` is
            given. Default: ``''``.
        purge_step (int, optional): when resuming a run that crashed after step ``T``,
            events from ``purge_step`` on that the earlier run wrote are hidden by
            TensorBoard (a ``SessionLog.START`` event at ``purge_step`` is written first).
        max_queue (int): how many events may wait before a logging call forces a write.
            Default: 10.
        flush_secs (float): how often, in seconds, pending events are written. Default: 120.
        filename_suffix (str): appended to every event file name. Default: ``''``.

    Example::

        >>> from ember.utils.tensorboard import SummaryWriter
        >>> with SummaryWriter('runs/exp1') as writer:
        ...     for step in range(100):
        ...         writer.add_scalar('loss', 1.0 / (step + 1), step)
    """

    def __init__(self, log_dir=None, comment='', purge_step=None, max_queue=10,
                 flush_secs=120, filename_suffix=''):
        if not log_dir:
            import socket
            from datetime import datetime
            stamp = datetime.now().strftime('%b%d_%H-%M-%S')
            log_dir = os.path.join('runs', f'{stamp}_{socket.gethostname()}{comment}')
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        # the writers; emptied by close() and created again on the next logging call
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        global _DEFAULT_BINS
        if _DEFAULT_BINS is None:
            _DEFAULT_BINS = _default_bins()
        self.default_bins = list(_DEFAULT_BINS)

    def _get_file_writer(self):
        """The main ``FileWriter``, created again when the writer was closed."""
        fw = self.file_writer
        if fw is None or self.all_writers is None:
            fw = self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs,
                                               self.filename_suffix)
            self.all_writers = {fw.get_logdir(): fw}
            if self.purge_step is not None:
                step = self.purge_step
                fw.add_event(Event(step=step, file_version='brain.Event:2'))
                fw.add_event(Event(step=step, session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return fw

    def get_logdir(self):
        """The directory the event files are written to.

        Example::

            >>> SummaryWriter('runs/exp').get_logdir()
            'runs/exp'
        """
        return self.log_dir

    # ---------------------------------------------------------------- scalars and tensors

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """Log one scalar.

        Args:
            tag (str): the series name.
            scalar_value (float, int, Tensor or numpy scalar): the value (one element).
            global_step (int, optional): the step.
            walltime (float, optional): seconds since the epoch. Default: now.
            new_style (bool): store it as a tensor under the ``scalars`` plugin (faster
                for TensorBoard to load) instead of the legacy ``simple_value``.
                Default: ``False``.
            double_precision (bool): with ``new_style``, keep float64. Default: ``False``.

        Example::

            >>> writer.add_scalar('loss', loss.item(), step)
        """
        summ = scalar(tag, scalar_value, new_style=new_style,
                      double_precision=double_precision)
        fw = self.file_writer
        if fw is None or self.all_writers is None:
            fw = self._get_file_writer()
        fw.add_summary(summ, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Log several scalars under one chart. Each goes to its own event file in the
        sub-directory ``<log_dir>/<main_tag with '/' as '_'>_<tag>``, tagged ``main_tag``.

        Args:
            main_tag (str): the chart's name.
            tag_scalar_dict (dict): series name -> value.
            global_step (int, optional): the step.
            walltime (float, optional): seconds since the epoch. Default: now (the same
                for every series).

        NOTE: unlike PyTorch, which logs the series before a bad value and then raises,
        ember converts every value first and logs nothing when one is bad.

        Example::

            >>> writer.add_scalars('loss', {'train': 0.5, 'val': 0.7}, step)
        """
        walltime = time.time() if walltime is None else walltime
        logdir = self._get_file_writer().get_logdir()
        # every value converted first: a bad one writes nothing
        items = [(tag, scalar(main_tag, value)) for tag, value in tag_scalar_dict.items()]
        for tag, summ in items:
            fw_tag = logdir + '/' + main_tag.replace('/', '_') + '_' + tag
            if self.all_writers is None:
                raise AssertionError("self.all_writers is None")
            fw = self.all_writers.get(fw_tag)
            if fw is None:
                fw = self.all_writers[fw_tag] = FileWriter(fw_tag, self.max_queue,
                                                           self.flush_secs,
                                                           self.filename_suffix)
            fw.add_summary(summ, global_step, walltime)

    def add_tensor(self, tag, tensor, global_step=None, walltime=None):
        """Log a whole tensor (plugin ``tensor``).

        Args:
            tag (str): the tag.
            tensor (Tensor): the values.
            global_step (int, optional): the step.
            walltime (float, optional): seconds since the epoch. Default: now.

        Example::

            >>> writer.add_tensor('weights', model.fc.weight.detach(), step)
        """
        self._get_file_writer().add_summary(tensor_proto(tag, tensor), global_step,
                                            walltime)

    # ---------------------------------------------------------------- histograms

    def add_histogram(self, tag, values, global_step=None, bins='tensorflow', walltime=None,
                      max_bins=None):
        """Log the histogram of ``values``.

        Args:
            tag (str): the tag.
            values (Tensor or numpy.ndarray): the values, any shape.
            global_step (int, optional): the step.
            bins (str, int or sequence): ``'tensorflow'`` (TensorBoard's exponential
                buckets) or anything :func:`numpy.histogram` takes, e.g. ``'auto'``, ``'fd'``
                or a count. Default: ``'tensorflow'``.
            walltime (float, optional): seconds since the epoch. Default: now.
            max_bins (int, optional): the most buckets to keep.

        Example::

            >>> writer.add_histogram('fc.weight', model.fc.weight, step)
        """
        if isinstance(bins, str) and bins == 'tensorflow':
            bins = self.default_bins
        self._get_file_writer().add_summary(histogram(tag, values, bins, max_bins=max_bins),
                                            global_step, walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares, bucket_limits,
                          bucket_counts, global_step=None, walltime=None):
        """Log a histogram given by its statistics.

        Args:
            tag (str): the tag.
            min, max (float): the smallest and largest value.
            num (int): how many values.
            sum, sum_squares (float): the sum of the values and of their squares.
            bucket_limits (sequence of float): each bucket's right edge.
            bucket_counts (sequence of float): each bucket's count, as many as limits.
            global_step (int, optional): the step.
            walltime (float, optional): seconds since the epoch. Default: now.

        Raises:
            ValueError: the limits and the counts differ in length.

        Example::

            >>> writer.add_histogram_raw('h', min=0., max=2., num=3, sum=3., sum_squares=5.,
            ...                         bucket_limits=[1., 2.], bucket_counts=[1, 2], global_step=0)
        """
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        self._get_file_writer().add_summary(
            histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits,
                          bucket_counts), global_step, walltime)

    # ---------------------------------------------------------------- images, media

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats='CHW'):
        """Log an image (PNG; needs Pillow).

        Args:
            tag (str): the tag.
            img_tensor (Tensor or numpy.ndarray): the image; floats in [0, 1] or uint8 in
                [0, 255].
            global_step (int, optional): the step.
            walltime (float, optional): seconds since the epoch. Default: now.
            dataformats (str): the layout: ``'CHW'``, ``'HWC'``, ``'HW'``, ... (C = 1, 3
                or 4). Default: ``'CHW'``.

        Shape:
            - img_tensor: ``(C, H, W)`` by default, as ``dataformats`` says otherwise.

        Example::

            >>> writer.add_image('sample', ember.rand(3, 32, 32), step)
        """
        self._get_file_writer().add_summary(image(tag, img_tensor, dataformats=dataformats),
                                            global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None,
                   dataformats='NCHW'):
        """Log a batch of images, tiled in a grid of up to 8 a row.

        Args:
            tag (str): the tag.
            img_tensor (Tensor or numpy.ndarray): the images.
            global_step (int, optional): the step.
            walltime (float, optional): seconds since the epoch. Default: now.
            dataformats (str): ``'NCHW'`` or ``'NHWC'``. Default: ``'NCHW'``.

        Shape:
            - img_tensor: ``(N, C, H, W)`` by default.

        Example::

            >>> writer.add_images('batch', ember.rand(16, 3, 28, 28), step)
        """
        self._get_file_writer().add_summary(image(tag, img_tensor, dataformats=dataformats),
                                            global_step, walltime)

    def add_image_with_boxes(self, tag, img_tensor, box_tensor, global_step=None,
                             walltime=None, rescale=1, dataformats='CHW', labels=None):
        """Log an image with boxes drawn on it.

        Args:
            tag (str): the tag.
            img_tensor (Tensor or numpy.ndarray): the image.
            box_tensor (Tensor or numpy.ndarray): ``(K, 4)`` boxes ``(xmin, ymin, xmax,
                ymax)`` in pixels.
            global_step (int, optional): the step.
            walltime (float, optional): seconds since the epoch. Default: now.
            rescale (float): scale factor of the image. Default: 1.
            dataformats (str): the image layout. Default: ``'CHW'``.
            labels (str or list of str, optional): one caption per box (ignored when the
                count differs).

        Example::

            >>> writer.add_image_with_boxes('det', ember.rand(3, 64, 64),
            ...                              ember.tensor([[4., 4., 40., 30.]]), 0, labels=['cat'])
        """
        if labels is not None:
            if isinstance(labels, str):
                labels = [labels]
            if len(labels) != box_tensor.shape[0]:
                labels = None
        self._get_file_writer().add_summary(
            image_boxes(tag, img_tensor, box_tensor, rescale=rescale,
                        dataformats=dataformats, labels=labels), global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """Log a matplotlib figure (or a list of them, tiled) as an image.

        Args:
            tag (str): the tag.
            figure (matplotlib.figure.Figure or list of them): what to render.
            global_step (int, optional): the step.
            close (bool): close the figure(s) afterwards. Default: ``True``.
            walltime (float, optional): seconds since the epoch. Default: now.

        Example::

            >>> fig = plt.figure(); plt.plot([1, 3, 2])
            >>> writer.add_figure('curve', fig, step)
        """
        fmt = 'NCHW' if isinstance(figure, list) else 'CHW'
        self.add_image(tag, figure_to_image(figure, close), global_step, walltime,
                       dataformats=fmt)

    def add_video(self, tag, vid_tensor, global_step=None, fps=4, walltime=None):
        """Log a video (GIF; needs moviepy).

        Without moviepy a message is printed and an empty value is logged, as torch does.

        Args:
            tag (str): the tag.
            vid_tensor (Tensor or numpy.ndarray): ``(N, T, C, H, W)``; floats in [0, 1] or
                uint8.
            global_step (int, optional): the step.
            fps (float): frames per second. Default: 4.
            walltime (float, optional): seconds since the epoch. Default: now.

        Example::

            >>> writer.add_video('clip', ember.rand(1, 16, 3, 32, 32), step, fps=8)
        """
        self._get_file_writer().add_summary(video(tag, vid_tensor, fps), global_step,
                                            walltime)

    def add_audio(self, tag, snd_tensor, global_step=None, sample_rate=44100, walltime=None):
        """Log a mono audio clip (16-bit WAV).

        Args:
            tag (str): the tag.
            snd_tensor (Tensor or numpy.ndarray): ``(1, L)`` or ``(L,)`` samples in [-1, 1].
            global_step (int, optional): the step.
            sample_rate (int): samples per second. Default: 44100.
            walltime (float, optional): seconds since the epoch. Default: now.

        Example::

            >>> t = ember.linspace(0, 1, 8000)
            >>> writer.add_audio('tone', ember.sin(2 * math.pi * 440 * t), 0, sample_rate=8000)
        """
        self._get_file_writer().add_summary(audio(tag, snd_tensor, sample_rate=sample_rate),
                                            global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """Log a (Markdown) string.

        Args:
            tag (str): the tag (stored as ``tag + '/text_summary'``).
            text_string (str): the text.
            global_step (int, optional): the step.
            walltime (float, optional): seconds since the epoch. Default: now.

        Example::

            >>> writer.add_text('notes', 'lr **0.1**', 0)
        """
        self._get_file_writer().add_summary(text(tag, text_string), global_step, walltime)

    # ---------------------------------------------------------------- graphs

    def add_onnx_graph(self, prototxt):
        """Log the graph of an ONNX model file (needs the ``onnx`` package).

        Args:
            prototxt (str): the path of the ``.onnx`` file.

        Example::

            >>> writer.add_onnx_graph('model.onnx')
        """
        from ._graph import load_onnx_graph
        self._get_file_writer().add_onnx_graph(load_onnx_graph(prototxt))

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """Log the graph of ``model`` run on ``input_to_model``.

        NOTE: unlike PyTorch, which traces with TorchScript (ember has no TorchScript), the
        graph is built from :func:`ember.fx.symbolic_trace` of the model (so the model must
        be fx-traceable): one node per leaf-module call, function call and method call,
        scoped by module path as torch scopes them, with output shapes from running the
        inputs. The input and output nodes match torch's (TorchScript may add a ``.N``
        suffix to an input name that the model reuses); the inner nodes are the fx graph's,
        not TorchScript's ``aten::`` ops and ``prim::GetAttr`` parameter nodes.

        Args:
            model (ember.nn.Module): the model (put in eval mode while tracing, then
                restored).
            input_to_model (Tensor or tuple of Tensors): example inputs.
            verbose (bool): print the graph. Default: ``False``.
            use_strict_trace (bool): ignored.

        Example::

            >>> writer.add_graph(model, ember.randn(1, 3, 32, 32))
        """
        from ._graph import graph
        self._get_file_writer().add_graph(graph(model, input_to_model, verbose,
                                                use_strict_trace))

    # ---------------------------------------------------------------- embeddings

    @staticmethod
    def _encode(rawstr):
        # a tag as a directory name: '%', '/' and '\' percent-encoded
        return rawstr.replace('%', '%25').replace('/', '%2f').replace('\\', '%5c')

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None,
                      tag='default', metadata_header=None):
        """Log an embedding for the projector: ``tensors.tsv`` (and ``metadata.tsv``,
        ``sprite.png``) under ``<log_dir>/<step:05d>/<tag>/``, listed in
        ``<log_dir>/projector_config.pbtxt``.

        Args:
            mat (Tensor or numpy.ndarray): ``(N, D)``, one row per point.
            metadata (list, optional): one label per point (or one row per point with
                ``metadata_header``).
            label_img (Tensor, optional): ``(N, C, H, W)`` images, one per point.
            global_step (int, optional): the step. Default: 0.
            tag (str): the embedding's name. Default: ``'default'``.
            metadata_header (list, optional): column names of ``metadata``.

        Raises:
            AssertionError: the counts of points, labels and images differ, or ``mat`` is
                not 2-D.

        NOTE: unlike PyTorch, which creates the directory and may write some of the files
        before it finds bad input, ember checks everything first and writes nothing then.

        Example::

            >>> writer.add_embedding(features, metadata=labels.tolist(), label_img=images,
            ...                      tag='mnist')
        """
        mat = make_np(mat)
        if global_step is None:
            global_step = 0
        subdir = f'{str(global_step).zfill(5)}/{self._encode(tag)}'
        save_path = os.path.join(self._get_file_writer().get_logdir(), subdir)
        fs = tf.io.gfile
        exists = fs.exists(save_path)
        if exists and not fs.isdir(save_path):
            raise NotADirectoryError(
                f"Path: `{save_path}` exists, but is a file. Cannot proceed.")
        # every check and every file's content first: bad input writes nothing
        files = {}
        if metadata is not None:
            if mat.shape[0] != len(metadata):
                raise AssertionError("#labels should equal with #data points")
            files['metadata.tsv'] = tsv_bytes(metadata, metadata_header)
        if label_img is not None:
            if mat.shape[0] != label_img.shape[0]:
                raise AssertionError("#images should equal with #data points")
            files['sprite.png'] = sprite_bytes(label_img)
        if mat.ndim != 2:
            raise AssertionError(
                "mat should be 2D, where mat.size(0) is the number of data points")
        files['tensors.tsv'] = mat_bytes(mat)
        if exists:
            print("warning: Embedding dir exists, did you set global_step for "
                  "add_embedding()?")
        else:
            fs.makedirs(save_path)
        for name, data in files.items():
            write_file(save_path, name, data)
        if not hasattr(self, '_projector_config'):
            self._projector_config = ProjectorConfig()
        self._projector_config.embeddings.extend(
            [get_embedding_info(metadata, label_img, subdir, global_step, tag)])
        from google.protobuf import text_format
        write_pbtxt(self._get_file_writer().get_logdir(),
                    text_format.MessageToString(self._projector_config))

    # ---------------------------------------------------------------- PR curves

    def add_pr_curve(self, tag, labels, predictions, global_step=None, num_thresholds=127,
                     weights=None, walltime=None):
        """Log a precision-recall curve.

        Args:
            tag (str): the tag.
            labels (Tensor or numpy.ndarray): the ground truth, 0/1 or bool.
            predictions (Tensor or numpy.ndarray): probabilities in [0, 1], same shape.
            global_step (int, optional): the step.
            num_thresholds (int): thresholds on the curve (at most 127). Default: 127.
            weights (optional): per-example weights.
            walltime (float, optional): seconds since the epoch. Default: now.

        Example::

            >>> writer.add_pr_curve('pr', ember.randint(2, (100,)), ember.rand(100), 0)
        """
        labels, predictions = make_np(labels), make_np(predictions)
        self._get_file_writer().add_summary(
            pr_curve(tag, labels, predictions, num_thresholds, weights), global_step,
            walltime)

    def add_pr_curve_raw(self, tag, true_positive_counts, false_positive_counts,
                         true_negative_counts, false_negative_counts, precision, recall,
                         global_step=None, num_thresholds=127, weights=None, walltime=None):
        """Log a precision-recall curve given by its counts (one entry per threshold).

        Args:
            tag (str): the tag.
            true_positive_counts, false_positive_counts, true_negative_counts,
                false_negative_counts, precision, recall: 1-D sequences or tensors.
            global_step (int, optional): the step.
            num_thresholds (int): the number of thresholds (at most 127). Default: 127.
            weights: unused.
            walltime (float, optional): seconds since the epoch. Default: now.

        Example::

            >>> writer.add_pr_curve_raw('pr', [3, 1], [2, 0], [0, 2], [0, 2], [0.6, 1.], [1., 0.33],
            ...                          0, num_thresholds=2)
        """
        self._get_file_writer().add_summary(
            pr_curve_raw(tag, true_positive_counts, false_positive_counts,
                         true_negative_counts, false_negative_counts, precision, recall,
                         num_thresholds, weights), global_step, walltime)

    # ---------------------------------------------------------------- custom scalars

    def add_custom_scalars_multilinechart(self, tags, category='default', title='untitled'):
        """Log a custom-scalars layout of one multi-line chart of ``tags``.

        Args:
            tags (list of str): the scalar tags (regexes) to plot together.
            category (str): the layout section. Default: ``'default'``.
            title (str): the chart title. Default: ``'untitled'``.

        Example::

            >>> writer.add_custom_scalars_multilinechart(['loss/train', 'loss/val'], title='loss')
        """
        self._get_file_writer().add_summary(
            custom_scalars({category: {title: ['Multiline', tags]}}))

    def add_custom_scalars_marginchart(self, tags, category='default', title='untitled'):
        """Log a custom-scalars layout of one margin chart.

        Args:
            tags (list of str): exactly three tags: the value, its lower and upper bound.
            category (str): the layout section. Default: ``'default'``.
            title (str): the chart title. Default: ``'untitled'``.

        Raises:
            AssertionError: ``tags`` does not have three entries.

        Example::

            >>> writer.add_custom_scalars_marginchart(['acc', 'acc/low', 'acc/high'])
        """
        if len(tags) != 3:
            raise AssertionError(f"Expected 3 tags, got {len(tags)}.")
        self._get_file_writer().add_summary(
            custom_scalars({category: {title: ['Margin', tags]}}))

    def add_custom_scalars(self, layout):
        """Log a custom-scalars layout.

        Args:
            layout (dict): ``{category: {chart title: ['Multiline' or 'Margin', tags]}}``.

        Example::

            >>> writer.add_custom_scalars({'loss': {'both': ['Multiline', ['loss/train',
            ...                                                           'loss/val']]}})
        """
        self._get_file_writer().add_summary(custom_scalars(layout))

    # ---------------------------------------------------------------- meshes, hparams

    def add_mesh(self, tag, vertices, colors=None, faces=None, config_dict=None,
                 global_step=None, walltime=None):
        """Log a 3-D mesh or point cloud.

        Args:
            tag (str): the tag.
            vertices (Tensor): ``(B, N, 3)`` coordinates.
            colors (Tensor, optional): ``(B, N, 3)`` RGB colours in [0, 255].
            faces (Tensor, optional): ``(B, F, 3)`` vertex indices of each triangle.
            config_dict (dict, optional): three.js scene settings.
            global_step (int, optional): the step.
            walltime (float, optional): seconds since the epoch. Default: now.

        Example::

            >>> writer.add_mesh('cloud', ember.rand(1, 100, 3), global_step=0)
        """
        self._get_file_writer().add_summary(mesh(tag, vertices, colors, faces, config_dict),
                                            global_step, walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None,
                    run_name=None, global_step=None):
        """Log a set of hyper-parameters with the metrics they reached, for the hparams
        plugin. It is written to the sub-run ``<log_dir>/<run_name>``.

        Args:
            hparam_dict (dict): name -> value (bool, str, int, float or a tensor).
            metric_dict (dict): name -> value; each is also logged as a scalar.
            hparam_domain_discrete (dict, optional): name -> the list of values it can take.
            run_name (str, optional): the sub-run's name. Default: the current time.
            global_step (int, optional): the step.

        Raises:
            TypeError: ``hparam_dict`` or ``metric_dict`` is not a dict.

        NOTE: unlike PyTorch, which has written the sub-run's hparams events when a metric
        value turns out bad, ember checks the metric values first and writes nothing then.

        Example::

            >>> writer.add_hparams({'lr': 0.1, 'bsize': 32}, {'hparam/accuracy': 0.9})
        """
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        exp, ssi, sei = hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        metrics = [scalar(k, v) for k, v in metric_dict.items()]   # bad values: no run
        if not run_name:
            run_name = str(time.time())
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name)
        with SummaryWriter(log_dir=logdir) as w:
            for s in [exp, ssi, sei] + metrics:
                w.file_writer.add_summary(s, global_step)

    # ---------------------------------------------------------------- lifetime

    def flush(self):
        """Write every pending event of every event file to disk.

        Example::

            >>> writer.add_scalar('loss', 0.5, 0)
            >>> writer.flush()   # on disk now
        """
        if self.all_writers is None:
            return
        for w in self.all_writers.values():
            w.flush()

    def close(self):
        """Write the pending events and close every event file. Logging again afterwards

        Example::

            >>> writer.close()
        """
        if self.all_writers is None:
            return
        for w in self.all_writers.values():
            w.flush()
            w.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()
