"""What a torchvision dataset of labelled images, and a DataLoader over it, yield.

`datasets.MNIST(root, transform=transforms.ToTensor())` yields `(image, label)`: the
transform's tensor of the image (channels, height, width: float, no grad) and the class
index, an int. A `torch.utils.data.DataLoader` over it with the default collate stacks a
batch of them: `[images, labels]`, a float tensor of rank 4 and an int64 tensor of rank 1,
sharing the batch size (the last batch may be smaller: a size of its own). Anything
else (a transform of another kind, a `target_transform`, a `collate_fn`, `batch_size=None`)
stays unknown. Checked in torchvision 0.29 / torch 2.13.
"""

from __future__ import annotations

from gradlint.analysis.dataflow.values import Const, Grad, Obj, Seq, Tensor, new_storage
from gradlint.analysis.shapes.model import Shape, fresh

_DATASETS = "torchvision.datasets."
_TRANSFORMS = "torchvision.transforms."
LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})

# datasets whose item is (image, class index as an int) (their `__getitem__`)
_LABELLED_IMAGES = frozenset(
    {"MNIST", "FashionMNIST", "KMNIST", "CIFAR10", "CIFAR100", "SVHN", "ImageFolder", "FakeData"}
)
# transforms taking a PIL image or a tensor image to one of the same kind and rank
_EITHER = frozenset(
    {"Resize", "CenterCrop", "RandomCrop", "RandomResizedCrop", "Pad", "RandomRotation"}
    | {"RandomHorizontalFlip", "RandomVerticalFlip", "ColorJitter", "Grayscale"}
    | {"RandomGrayscale"}
)
# transforms of a tensor image only, keeping its rank and dtype class
_OF_TENSORS = frozenset({"Normalize", "RandomErasing"})
TRANSFORMS = frozenset({"ToTensor", "Compose"} | _EITHER | _OF_TENSORS)
# transforms keeping an image's channels, height and width
_SIZE_KEEPING = frozenset({"ToTensor", "Normalize", "RandomErasing", "ColorJitter"})
_SIZE_KEEPING |= {"RandomHorizontalFlip", "RandomVerticalFlip", "RandomGrayscale"}
# (channels, height, width) of every image of a dataset
_IMAGE_SIZES = {
    "MNIST": (1, 28, 28),
    "FashionMNIST": (1, 28, 28),
    "KMNIST": (1, 28, 28),
    "CIFAR10": (3, 32, 32),
    "CIFAR100": (3, 32, 32),
    "SVHN": (3, 32, 32),
}


def transform(qualified: str, positional: list) -> Obj | None:
    """The value of `transforms.X(...)` for a transform this module knows, else None."""
    name = qualified.removeprefix(_TRANSFORMS)
    if not qualified.startswith(_TRANSFORMS) or name not in TRANSFORMS:
        return None
    steps = positional[0] if name == "Compose" and positional else None
    return Obj(qualified, attrs={"transforms": steps} if name == "Compose" else {})


def _tensor_image_steps(value) -> list[str] | None:
    """The steps of a transform `value` that turns a PIL image into a float tensor
    (C, H, W), else None."""
    if not isinstance(value, Obj) or not value.kind.startswith(_TRANSFORMS):
        return None
    name = value.kind.removeprefix(_TRANSFORMS)
    if name == "ToTensor":
        return [name]
    steps = value.attrs.get("transforms") if name == "Compose" else None
    if not isinstance(steps, Seq) or steps.any_length:
        return None
    names, tensor = [], False
    for step in steps.items:
        if not isinstance(step, Obj):
            return None
        kind = step.kind.removeprefix(_TRANSFORMS)
        if kind == "ToTensor" and not tensor:
            tensor = True
        elif not (kind in _EITHER or (kind in _OF_TENSORS and tensor)):
            return None
        names.append(kind)
    return names if tensor else None


def dataset(qualified: str, keywords: dict, label) -> Obj | None:
    """`datasets.X(..., transform=...)` yielding (float tensor image, `label`: an int)."""
    name = qualified.removeprefix(_DATASETS)
    if not qualified.startswith(_DATASETS) or name not in _LABELLED_IMAGES:
        return None
    steps = _tensor_image_steps(keywords.get("transform"))
    if "target_transform" in keywords or steps is None:
        return None
    sizes = _IMAGE_SIZES.get(name) if _SIZE_KEEPING.issuperset(steps) else None
    dims = sizes or tuple(fresh() for _ in range(3))
    image = Tensor(new_storage(), Grad.OFF, is_tensor=True, dtype="float", shape=Shape(dims))
    return Obj(qualified, attrs={"*": Seq((image, label))})


def loader(positional: list, keywords: dict) -> Obj | None:
    """A DataLoader with the default collate over a dataset of `dataset`: its batches.
    `positional` and `keywords`: every argument, each known to be one or the other."""
    data = positional[0] if positional else keywords.get("dataset")
    if not isinstance(data, Obj) or not data.kind.startswith(_DATASETS):
        return None
    batch_size = positional[1] if len(positional) > 1 else keywords.get("batch_size")
    if len(positional) > 5 or "collate_fn" in keywords or batch_size == Const(None):
        return None
    item = data.attrs.get("*")
    image = item.items[0] if isinstance(item, Seq) and len(item.items) == 2 else None
    if not isinstance(image, Tensor) or image.shape is None or image.shape.dims is None:
        return None
    batch = fresh()  # the last batch may be smaller: a size of its own, not the setting
    images = Shape((batch, *image.shape.dims))
    return Obj(
        "torch.utils.data.DataLoader",
        attrs={
            "*": Seq(
                (
                    Tensor(new_storage(), Grad.OFF, is_tensor=True, dtype="float", shape=images),
                    Tensor(
                        new_storage(), Grad.OFF, is_tensor=True, dtype="int", shape=Shape((batch,))
                    ),
                )
            )
        },
    )
