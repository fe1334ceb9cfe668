"""A tenant's catalogue made through the services: one lesson, one content item and one exercise, as the bench's
worlds (capacity, concurrency, load) and the threaded-serving test need it before their traffic."""

import dataclasses

from support.ai_move import make_exercise


@dataclasses.dataclass(frozen=True)
class Catalogue:
    lesson_id: str
    lesson_title: str
    content_key: str
    content_title: str
    exercise_id: str


def seed_catalogue(client, label: str, content_key: str = "notice", by: str = "bench") -> Catalogue:
    """A live lesson and an announcement titled after `label`, and a rep exercise, written by `by`."""
    from wellness_api.content import service as content
    from wellness_api.content.models import CreateContentBody
    from wellness_api.lessons import service as lessons
    from wellness_api.lessons.models import CreateLessonBody

    lesson_title, content_title = f"Lesson of {label}", f"Notice of {label}"
    lesson_id = lessons.create_lesson(client, CreateLessonBody.model_validate(
        {"title": {"en": lesson_title}, "duration": 10, "isLive": True}, strict=True), by)
    content.put_item(client, CreateContentBody.model_validate(
        {"key": content_key, "categoryKey": "announcements", "title": {"en": content_title},
         "body": {"en": "Read me."}}, strict=True), by)
    return Catalogue(lesson_id, lesson_title, content_key, content_title, make_exercise(client, "rep", name="Squats"))
