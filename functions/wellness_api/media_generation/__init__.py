"""AI media generation (spec 4.9, 2.13, 3.3, 7.7): image and video jobs for administrators, run by Cloud Tasks."""
