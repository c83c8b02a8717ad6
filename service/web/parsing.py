"""Request parsing on the hot path: orjson, and a fast path through the schemas.

flask-smorest hands every JSON body to webargs, which loads it with a
marshmallow schema. marshmallow is thorough and slow for the common case of a
body that is already exactly right. :class:`FastLoader` walks a schema's fields
once per request with plain type checks and the fields' own validators; when
the body is exactly what the schema wants it returns the same dict
``schema.load`` would, and otherwise it steps aside (returns ``None``) so that
marshmallow produces the precise errors. Fields it does not know make it step
aside for good. A property test checks that both paths agree.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import flask
import flask_smorest
import orjson
from flask import Response, request
from marshmallow import Schema, ValidationError, fields, missing
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request

_FAIL = object()


class FastField(fields.Field[Any]):
    """A custom field whose ``deserialize`` is cheap enough for the fast path."""


class Bool(fields.Boolean):
    """A JSON boolean: ``true`` or ``false`` only (docs/api.md#errors-and-codes).

    marshmallow's ``Boolean`` also takes ``"yes"``, ``1``, ``"on"``, ``"false"``…,
    and even ``truthy={True}`` lets ``1`` in (``1 == True``), so the check is on the type.
    """

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if type(value) is bool:
            return value
        raise self.make_error("invalid", input=value)


class Int(fields.Integer):
    """A JSON integer only (docs/api.md#errors-and-codes): never a string, a float or a boolean."""

    default_error_messages = {"invalid": "Not a valid integer."}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if type(value) is int:
            return value
        raise self.make_error("invalid", input=value)


class FastLoader:
    """Load a body the way ``schema.load`` does, when the body is exactly right.

    Each field is compiled once into a small checker that returns the loaded
    value or ``_FAIL``.
    """

    def __init__(self, schema: Schema) -> None:
        self.usable = (not any(schema._hooks.values()) and schema.unknown == "raise"
                       and _supported(schema))
        self.fields = [(name, f.data_key or name, f, _compile(f) if self.usable else None)
                       for name, f in schema.load_fields.items()]
        self.allowed = frozenset(key for _, key, _, _ in self.fields)

    def load(self, data: Any) -> dict[str, Any] | None:
        if not self.usable or type(data) is not dict or not self.allowed.issuperset(data):
            return None
        out: dict[str, Any] = {}
        for name, key, field, check in self.fields:
            if key in data:
                value = check(data[key])  # type: ignore[misc]  # None only when not usable, refused above
                if value is _FAIL:
                    return None
                out[name] = value
            elif field.required:
                return None
            elif field.load_default is not missing:
                d = field.load_default
                out[name] = d() if callable(d) else d
        return out


Check = Callable[[Any], Any]


def _compile(field: fields.Field[Any]) -> Check:
    """A checker for one field: the loaded value, or ``_FAIL`` to step aside."""
    kind = type(field)
    base: Check
    if kind is fields.String:
        def base(v: Any) -> Any:
            return v if type(v) is str else _FAIL
    elif kind is Bool:
        def base(v: Any) -> Any:
            return v if type(v) is bool else _FAIL
    elif kind is Int:
        def base(v: Any) -> Any:
            return v if type(v) is int else _FAIL
    elif kind is fields.Dict and field.key_field is None and field.value_field is None:  # type: ignore[attr-defined]
        def base(v: Any) -> Any:  # an untyped object: marshmallow returns a copy
            return dict(v) if type(v) is dict else _FAIL
    elif kind is fields.List:
        inner_field = field.inner  # type: ignore[attr-defined]
        if type(inner_field) is fields.String and not inner_field.validators:
            def base(v: Any) -> Any:  # a list of strings: the common case, one pass
                if type(v) is not list:
                    return _FAIL
                for x in v:
                    if type(x) is not str:
                        return _FAIL
                return list(v)
        else:
            inner = _compile(inner_field)

            def base(v: Any) -> Any:
                if type(v) is not list:
                    return _FAIL
                out = [inner(x) for x in v]
                return _FAIL if any(x is _FAIL for x in out) else out
    elif kind is fields.Nested:
        loader = FastLoader(field.schema)  # type: ignore[attr-defined]
        if field.many:  # type: ignore[attr-defined]
            def base(v: Any) -> Any:
                if type(v) is not list:
                    return _FAIL
                out = [loader.load(x) for x in v]
                return _FAIL if any(x is None for x in out) else out
        else:
            def base(v: Any) -> Any:
                out = loader.load(v)
                return _FAIL if out is None else out
    else:  # a FastField (checked by _supported)
        def base(v: Any) -> Any:  # our own fields: their _deserialize is the whole check
            try:
                return field._deserialize(v, None, None)
            except ValidationError:
                return _FAIL
    validators = tuple(field.validators)
    allow_none = field.allow_none
    if not validators and not allow_none:
        return lambda v: _FAIL if v is None else base(v)

    def checked(v: Any) -> Any:
        if v is None:
            return None if allow_none else _FAIL
        value = base(v)
        if value is _FAIL:
            return _FAIL
        for validator in validators:
            try:
                if validator(value) is False:
                    return _FAIL
            except ValidationError:
                return _FAIL
        return value

    return checked


def _supported(schema: Schema) -> bool:
    known = (fields.String, Bool, Int, fields.List, fields.Nested)
    for f in schema.load_fields.values():
        if type(f) is fields.Dict and f.key_field is None and f.value_field is None:
            continue
        if type(f) not in known and not isinstance(f, FastField):
            return False
        if type(f) is fields.List and type(f.inner) not in known and not isinstance(f.inner, FastField):
            return False
        if type(f) is fields.Nested and not _supported(f.schema):
            return False
    return True


class FastParser(FlaskParser):
    """webargs' Flask parser with orjson and the :class:`FastLoader` fast path."""

    def __init__(self) -> None:
        super().__init__()
        self._loaders: dict[int, tuple[Schema, FastLoader]] = {}

    def _raw_load_json(self, req: Any) -> Any:
        if not is_json_request(req):
            return core.missing
        return orjson.loads(req.get_data(cache=True))  # orjson's error is a json.JSONDecodeError

    def load_json(self, req: Any, schema: Schema) -> Any:
        """The JSON body, or 400 ``malformed-json`` for anything that is not one JSON text.

        webargs reads a decode error with an empty ``doc`` as "no body" (422 naming every
        required field); orjson leaves ``doc`` empty for an empty body and for one that is
        not UTF-8 too, and both are malformed JSON (docs/api.md#errors-and-codes; RFC 8259 §8.1:
        JSON text is UTF-8). Issue 19 item 3.
        """
        try:
            return self._raw_load_json(req)
        except orjson.JSONDecodeError as exc:
            self._handle_invalid_json_error(exc, req)

    def _process_location_data(self, location_data: Any, schema: Schema, req: Any, location: str,
                               unknown: Any, validators: Any) -> Any:
        if location == "json" and not validators:
            entry = self._loaders.get(id(schema))
            if entry is None or entry[0] is not schema:
                entry = self._loaders[id(schema)] = (schema, FastLoader(schema))
            loaded = entry[1].load(location_data)
            if loaded is not None:
                return loaded
        return super()._process_location_data(location_data, schema, req, location, unknown,
                                              validators)


_F = TypeVar("_F", bound=Callable[..., Any])

if TYPE_CHECKING:
    class _SmorestBlueprint(flask.Blueprint):
        """What mypy sees of ``flask_smorest.Blueprint``: flask-smorest ships no types.

        It is a ``flask.Blueprint`` whose decorators hand the view back; only the
        decorators this service uses are declared.
        """

        def __init__(self, *args: Any, description: str = "", **kwargs: Any) -> None: ...
        def route(self, rule: str, *, parameters: list[Any] | None = None,
                  tags: list[str] | None = None, **options: Any) -> Callable[[_F], _F]: ...
        def arguments(self, schema: Any, *, location: str = "json", content_type: str | None = None,
                      required: bool = True, description: str | None = None,
                      example: Any = None, examples: Any = None,
                      **kwargs: Any) -> Callable[[_F], _F]: ...
        def response(self, status_code: int, schema: Any = None, *,
                     content_type: str | None = None, description: str | None = None,
                     example: Any = None, examples: Any = None,
                     headers: dict[str, Any] | None = None) -> Callable[[_F], _F]: ...
        def alt_response(self, status_code: int, response: Any = None, *, schema: Any = None,
                         content_type: str | None = None, description: str | None = None,
                         example: Any = None, examples: Any = None,
                         headers: dict[str, Any] | None = None,
                         success: bool = False) -> Callable[[_F], _F]: ...
        def doc(self, **kwargs: Any) -> Callable[[_F], _F]: ...
else:
    _SmorestBlueprint = flask_smorest.Blueprint


class Blueprint(_SmorestBlueprint):
    """A flask-smorest blueprint whose request bodies go through :class:`FastParser`."""

    ARGUMENTS_PARSER = FastParser()

    def ruling(self, path: str, body: Schema, answer: type[Schema]
               ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """``POST path``: a JSON ``body`` in, a 200 ``answer`` out, on the fast path (``@hot``).

        The stateless rulings all take this shape; ``body`` is an instance (webargs
        would build one per request from a class).
        """
        def wrap(view: Callable[..., Any]) -> Callable[..., Any]:
            view = hot(view)
            view = self.response(200, answer)(view)
            view = self.arguments(body)(view)
            return self.route(path, methods=["POST"])(view)
        return wrap


def hot(view: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a view that always returns a ``Response`` for :func:`install_fast_views`."""
    view._kaluki_hot = True  # type: ignore[attr-defined]
    return view


def install_fast_views(app: Any) -> None:
    """Give every ``@hot`` view a direct path around webargs and flask-smorest's wrappers.

    flask-smorest wraps a view in three layers (response, webargs, arguments) that
    cost about a fifth of a small request. For a hot view whose JSON body
    :class:`FastLoader` accepts, the fast path loads the body and calls the view
    itself; any other request (another media type, bad JSON, a body the fast
    loader steps aside from) takes the full documented path, so errors and
    problems are exactly as before. The OpenAPI document is unchanged.
    """
    for endpoint, full in list(app.view_functions.items()):
        inner = inspect.unwrap(full)
        if not getattr(inner, "_kaluki_hot", False):
            continue
        params = getattr(full, "_apidoc", {}).get("arguments", {}).get("parameters", [])
        json_params = [p for p in params if p.get("in") == "json"]
        if len(json_params) != 1 or len(params) != 1:
            continue
        loader = FastLoader(json_params[0]["schema"])
        if not loader.usable:
            continue

        def fast(*args: Any, _inner: Any = inner, _full: Any = full, _loader: FastLoader = loader,
                 **kwargs: Any) -> Any:
            if request.environ.get("CONTENT_TYPE", "").startswith("application/json"):
                try:
                    data = orjson.loads(request.get_data(cache=True))
                except orjson.JSONDecodeError:
                    data = None
                loaded = _loader.load(data) if data is not None else None
                if loaded is not None:
                    response = _inner(loaded, *args, **kwargs)
                    if not isinstance(response, Response):  # a hot view promised a Response
                        raise TypeError(f"{_inner.__name__} is @hot but returned {type(response)}")
                    return response
            return _full(*args, **kwargs)

        fast.__name__ = full.__name__
        fast._apidoc = getattr(full, "_apidoc", {})  # type: ignore[attr-defined]
        app.view_functions[endpoint] = fast
